"""Baumgarte figures: (alpha, beta) heat maps of drift and cost, and the impulse response of the
constraint error against the closed form of Φ̈ + 2αΦ̇ + β²Φ = 0 ([Notes-Baumgarte-ja] in
docs/sources.md).

Same conventions as figures.runs: functions take results.flatten rows and the results directory,
return a result dict, raise plot.Skipped without data.
"""
import math
import re

import numpy as np

from .. import names, plot, rerun, style
from ..files import write_atomic
from ..plot import Skipped
from . import pages
from .runs import result

GAIN_KEYS = ("alpha", "beta", "omega0", "zeta", "baumgarte_alpha", "baumgarte_beta")


def gains(row):
    """Effective (alpha, beta) of a baumgarte run (derived values first: they are set whichever
    of (alpha, beta) or (omega0, zeta) was given)."""
    p = row["method_params"]
    alpha = p.get("baumgarte_alpha", p.get("alpha"))
    beta = p.get("baumgarte_beta", p.get("beta"))
    return alpha, beta


def slug(text):
    """text as a file-name part: letters, digits and underscores."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def perturbation_text(row):
    """', p=0.001, w=0, reject': a run's initial perturbation and assembly option (empty without a perturbation)."""
    if row["perturbation_position"] is None and row["perturbation_velocity"] is None:
        return ""
    return (f", p={row['perturbation_position'] or 0:g}, w={row['perturbation_velocity'] or 0:g}"
            + (f", {row['assembly']}" if row["assembly"] else ""))


def _case(row):
    """The problem case (instance, horizon, initial condition: results.case_key) and stepper
    setting of a run."""
    return row["case_key"], row["stepper"], row["setting"]


def _config(row):
    """What a heat map holds fixed: the case and stepper setting, and the method parameters
    other than the gains."""
    others = tuple(sorted((k, str(v)) for k, v in row["method_params"].items()
                          if k not in GAIN_KEYS))
    return _case(row) + (others,)


def drift_value(row):
    """The drift a heat-map cell shows: max position residual (velocity residual on problems
    without holonomic rows); the final residual when the run starts with a position
    perturbation (its maximum would be the perturbation itself)."""
    holonomic = (row["mh"] or 0) > 0
    which = "position" if holonomic else "velocity"
    perturbed = bool(row["perturbation_position"]) and holonomic
    return row[f"drift_{which}_{'final' if perturbed else 'max'}"], \
        f"{'final' if perturbed else 'max'} {'‖Φ‖' if holonomic else '‖ψ‖'}"


def heatmap_grids(rows):
    """[{"case": first row, "alphas", "betas", "cells": {(alpha, beta): row}, "index1": row or
    None}] for every configuration whose baumgarte runs span at least 2 alphas × 2 betas."""
    groups = {}
    for r in rows:
        if r["method"] == "baumgarte":
            alpha, beta = gains(r)
            if alpha is not None and beta is not None:
                groups.setdefault(_config(r), {})[(alpha, beta)] = r
    grids = []
    for cells in groups.values():
        alphas = sorted({a for a, _ in cells})
        betas = sorted({b for _, b in cells})
        if len(alphas) < 2 or len(betas) < 2:
            continue
        case = next(iter(cells.values()))
        index1 = next((r for r in rows if r["method"] == "index1" and _case(r) == _case(case)),
                      None)
        grids.append({"case": case, "alphas": alphas, "betas": betas, "cells": cells,
                      "index1": index1})
    return grids


def second_map(grid):
    """What the right-hand map of a grid shows: (kind, label, {cell: value}, note). The gains
    change the work of an adaptive stepper (its error is held by the tolerance) and the
    accuracy of a fixed-step one (its work is fixed by dt): RHS calls when they differ across
    the grid's successful cells; else the final error against the reference, with the note
    that every cell made the same number of calls; else nothing (kind None). Never run time:
    at equal work its differences are timing noise."""
    ok_cells = {k: r for k, r in grid["cells"].items() if r["status"] == "ok"}
    calls = {k: r["rhs_calls"] for k, r in ok_cells.items() if r["rhs_calls"] is not None}
    if len(set(calls.values())) > 1:
        return "calls", "RHS calls [–]", calls, ""
    same = (f"{next(iter(calls.values())):,} RHS calls in every cell".replace(",", " ")
            if calls else "")
    errors = {k: r["final_error"] for k, r in ok_cells.items() if r["final_error"] is not None}
    if errors:
        unit = names.error_unit(grid["case"]["problem"])
        return "error", "final error" + names.bracket(unit), errors, same
    return None, "", {}, same


def _compact(value):
    """'2e-9' (no zero padding of the exponent: cell labels must be short)."""
    mantissa, _, exponent = f"{value:.0e}".partition("e")
    return f"{mantissa}e{int(exponent)}"


def _draw_map(ax, grid, values, log, label, fmt):
    import matplotlib.colors as mcolors
    from matplotlib.patches import Rectangle
    alphas, betas = grid["alphas"], grid["betas"]
    data = np.full((len(betas), len(alphas)), np.nan)
    for (a, b), v in values.items():
        if v is not None and (v > 0 or not log):
            data[betas.index(b), alphas.index(a)] = v
    finite = data[np.isfinite(data)]
    norm = None
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        if log:
            norm = mcolors.LogNorm(vmin=lo, vmax=hi if hi > lo else lo * 10)
        else:
            norm = mcolors.Normalize(vmin=lo, vmax=hi if hi > lo else lo + 1)
    cmap = plot.pyplot().get_cmap("viridis")
    image = ax.imshow(np.ma.masked_invalid(data), origin="lower", cmap=cmap, norm=norm,
                      aspect="auto")
    # Cell labels only where they fit the cell (MIN_FONT text).
    fig = ax.figure
    cell = style.panel_width(fig, ax) / max(1, len(alphas))
    show = cell >= style.text_width("8e-10") + 0.04
    for (a, b), r in grid["cells"].items():
        x, y = alphas.index(a), betas.index(b)
        if r["status"] != "ok":
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor="#d9d9d9",
                                   edgecolor="#404040", hatch="///", linewidth=0.5))
            if show:
                ax.text(x, y, r["status"], ha="center", va="center",
                        bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
        elif np.isfinite(data[y, x]) and show:
            shade = cmap(norm(data[y, x]))
            light = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] > 0.5
            ax.text(x, y, fmt(data[y, x]), ha="center", va="center",
                    color="black" if light else "white")
    ax.set_xticks(range(len(alphas)), [f"{a:g}" for a in alphas])
    ax.set_yticks(range(len(betas)), [f"{b:g}" for b in betas])
    ax.set_xlabel("α [1/s]")
    ax.set_ylabel("β [1/s]")
    if finite.size:
        ax.figure.colorbar(image, ax=ax, label=label, fraction=0.06, pad=0.03)


def _index1_note(grid, what):
    """The index1 run of the same case, for a map of `what` (drift, calls or error)."""
    r = grid["index1"]
    if r is None:
        return ""
    head = f"{names.method('index1')}: "
    if r["status"] != "ok":
        return head + r["status"]
    if what == "drift":
        return head + _compact(drift_value(r)[0]) if drift_value(r)[0] else head + "–"
    if what == "calls":
        return head + f"{r['rhs_calls']} calls"
    return head + (_compact(r["final_error"]) if r["final_error"] else "–")


HEATMAP_DOC = "baumgarte_heatmaps.md"


def _setting_text(row):
    return f"{names.stepper(row['stepper'])} {row['setting']}"


def _perturbation_display(row):
    """', p = 0.001' / ', w = 0.01': the initial perturbation of a case."""
    if row["perturbation_position"] is None and row["perturbation_velocity"] is None:
        return ""
    parts = [f"{k} = {v:g}" for k, v in (("p", row["perturbation_position"]),
                                         ("w", row["perturbation_velocity"])) if v]
    return ", " + ", ".join(parts) if parts else ", unperturbed"


def _draw_pair(ax_d, ax_c, g, problem, per_row):
    """The drift map and the second map (RHS calls or final error) of one grid."""
    case = g["case"]
    head = [names.problem_label(problem) + _perturbation_display(case), _setting_text(case)]
    title_width = style.width() / per_row - 0.9  # less the colour bar
    drifts = {k: drift_value(r)[0] for k, r in g["cells"].items() if r["status"] == "ok"}
    what = drift_value(case)[1]
    unit_p, unit_v = names.drift_units(case["problem"])
    unit = unit_p if "Φ" in what else unit_v
    _draw_map(ax_d, g, drifts, True, what + names.bracket(unit), _compact)
    ax_d.set_title(style.fit_lines(head, title_width) + "\n"
                   + f"{what}; {_index1_note(g, 'drift')}")
    kind, label, values, note = second_map(g)
    if kind is None:
        ax_c.axis("off")
        ax_c.text(0.5, 0.5, note or "no cost or error to show", ha="center",
                  va="center", transform=ax_c.transAxes)
        return
    log = max(values.values()) > 20 * min(values.values()) if kind == "calls" else True
    _draw_map(ax_c, g, values, log, label,
              (lambda v: f"{v:.0f}") if kind == "calls" else _compact)
    what_c = "RHS calls" if kind == "calls" else "final error"
    ax_c.set_title("\n".join(t for t in (style.fit_lines(head, title_width),
                                           f"{what_c}; {_index1_note(g, kind)}", note) if t))


def _grid_table(g, problem):
    """The drift of one grid as a table entry (rows β, columns α; failed cells by status)."""
    case = g["case"]
    what = drift_value(case)[1]
    drifts = {k: drift_value(r)[0] for k, r in g["cells"].items() if r["status"] == "ok"}
    header = ["β \\ α"] + [f"{a:g}" for a in g["alphas"]]
    body = []
    for b in g["betas"]:
        cells = []
        for a in g["alphas"]:
            r = g["cells"].get((a, b))
            cells.append("–" if r is None else r["status"] if r["status"] != "ok"
                         else plot.fmt(drifts.get((a, b)), ".2e"))
        body.append([f"{b:g}"] + cells)
    title = f"{problem}, {case['stepper']} {case['setting']}{perturbation_text(case)}"
    caption = f"{title}: {what} (rows β, columns α)"
    if g["index1"] is not None:
        caption += (f"; index1 on the same case: {g['index1']['status']}, {what} "
                    f"{plot.fmt(drift_value(g['index1'])[0])}")
    return {"title": caption, "md": HEATMAP_DOC, "tex": None, "header": header, "rows": body}


@style.figure_function
def heatmaps(rows, results_dir, out_dir=None):
    """Two maps per (α, β) grid of baumgarte runs — the drift and what the gains change besides
    — one file per problem case (baumgarte_heatmap_<case>, on pages when tall) and their
    tables (baumgarte_heatmaps.md)."""
    grids = heatmap_grids(rows)
    if not grids:
        raise Skipped("no baumgarte runs whose (alpha, beta) span at least a 2 × 2 grid")
    files, tables, text = [], [], ["# Baumgarte (α, β) grids", ""]
    per_row = 2 if style.max_columns(3.2) >= 2 else 1
    # One file per problem case (instance, horizon, initial condition), the maps of a stepper
    # setting side by side (double width) or one above the other (single width).
    for which in dict.fromkeys(g["case"]["case_key"] for g in grids):
        mine = [g for g in grids if g["case"]["case_key"] == which]
        problem = mine[0]["case"]["problem_label"]
        stem = slug(problem + perturbation_text(mine[0]["case"]).replace("=", ""))
        height = 0.22 * max(len(g["betas"]) for g in mine) + 1.05

        def draw(units, problem=problem, height=height):
            fig, axes = style.grid(math.ceil(len(units) * 2 / per_row), per_row, height)
            flat = [ax for row in axes for ax in row]
            for i, g in enumerate(units):
                _draw_pair(flat[2 * i], flat[2 * i + 1], g, problem, per_row)
            style.finish(fig)
            return fig

        # A grid's two maps: one row at double width, two rows at single width.
        per_page = pages.units_per_page(height, rows_per_unit=2 // per_row, reserve=0.1)
        paths, _ = pages.save_pages(mine, per_page, draw, out_dir or results_dir,
                                    f"baumgarte_heatmap_{stem}")
        files += paths
        for g in mine:
            entry = _grid_table(g, problem)
            tables.append(entry)
            text += [f"## {entry['title']}", "", plot.markdown_table(entry["header"],
                                                                      entry["rows"])]
    write_atomic(f"{out_dir or results_dir}/{HEATMAP_DOC}", "\n".join(text))
    return result("baumgarte_heatmaps", "Baumgarte gain study",
                  "Per problem, stepper setting and initial perturbation, two maps over the "
                  "(α, β) grid of the baumgarte runs: the constraint drift (log colour scale, "
                  "in the units of the constraint rows) and what the gains change besides — the "
                  "work (RHS calls) of an adaptive stepper, whose error the tolerance holds, or "
                  "the final error against the reference of a fixed-step stepper, whose work dt "
                  "fixes (the title says how many RHS calls every cell made). Run time is not "
                  "shown: at equal work its differences are timing noise. Hatched grey cells "
                  "did not end ok (their status is written in); each title quotes the index1 "
                  "run of the same case.", files, tables, data=grids)


# --- impulse response -------------------------------------------------------------------------

def regime(alpha, beta):
    """The damping regime of Φ̈ + 2αΦ̇ + β²Φ = 0: under-, critically or overdamped."""
    if math.isclose(alpha, beta, rel_tol=1e-12, abs_tol=1e-300):
        return "critical"
    return "underdamped" if alpha < beta else "overdamped"


REGIMES = [("underdamped", "α < β"), ("critical", "α = β"), ("overdamped", "α > β")]
SOURCE_GAINS = {"underdamped": (10.0, 20.0), "critical": (20.0, 20.0), "overdamped": (20.0, 10.0)}


def impulse_response(alpha, beta, t):
    """h and ḣ: the impulse response of 1/(s² + 2αs + β²), h(0) = 0, ḣ(0) = 1."""
    t = np.asarray(t, dtype=float)
    kind = regime(alpha, beta)
    if kind == "underdamped":
        w = math.sqrt(beta * beta - alpha * alpha)
        e = np.exp(-alpha * t)
        return e * np.sin(w * t) / w, e * (np.cos(w * t) - alpha * np.sin(w * t) / w)
    if kind == "critical":
        e = np.exp(-alpha * t)
        return t * e, (1 - alpha * t) * e
    root = math.sqrt(alpha * alpha - beta * beta)
    s1, s2 = -alpha + root, -alpha - root
    e1, e2 = np.exp(s1 * t), np.exp(s2 * t)
    return (e1 - e2) / (s1 - s2), (s1 * e1 - s2 * e2) / (s1 - s2)


def free_response(alpha, beta, t):
    """g and ġ: the solution of g̈ + 2αġ + β²g = 0 with g(0) = 1, ġ(0) = 0; g = ḣ + 2αh and
    ġ = ḧ + 2αḣ = −β²h (h the impulse response). Closed forms: α < β: e^{−αt}(cos ωt +
    α sin(ωt)/ω); α = β: (1 + αt)e^{−αt}; α > β: (s₁e^{s₂t} − s₂e^{s₁t})/(s₁ − s₂)."""
    h, dh = impulse_response(alpha, beta, t)
    return dh + 2 * alpha * h, -beta * beta * h


def _columns(data, prefix):
    names = [c for c in data if re.fullmatch(prefix + r"_\d+", c)]
    return sorted(names, key=lambda c: int(c.rsplit("_", 1)[1]))


def _deviation(simulated, analytic):
    scale = float(np.max(np.abs(analytic)))
    ok = np.isfinite(simulated)
    if scale == 0 or not ok.any():
        return None
    return float(np.max(np.abs(simulated[ok] - analytic[ok]))) / scale


def impulse_cases(rows, results_dir):
    """Perturbed baumgarte runs with Φ columns in their series: [{"row", "alpha", "beta",
    "regime", "kind" (impulse | free), "amplitude", "t", "phi0", "analytic", "deviation",
    "worst", "rate_deviation"}]."""
    cases = []
    for r in rows:
        if r["method"] != "baumgarte" or r["status"] != "ok":
            continue
        p, w = r["perturbation_position"] or 0.0, r["perturbation_velocity"] or 0.0
        if p == 0 and w > 0:
            kind, amplitude = "impulse", w
        elif p != 0 and w == 0:
            kind, amplitude = "free", p
        else:
            continue
        alpha, beta = gains(r)
        data = rerun.series(results_dir, r)
        phis = _columns(data, "phi")
        if alpha is None or beta is None or not phis:
            continue
        t = data["t"]
        shape, rate = (impulse_response if kind == "impulse" else free_response)(alpha, beta, t)
        deviations = [_deviation(data[c] / amplitude, shape) for c in phis]
        dphis = _columns(data, "dphi")
        cases.append({
            "row": r, "alpha": alpha, "beta": beta, "regime": regime(alpha, beta), "kind": kind,
            "amplitude": amplitude, "t": t, "phi0": data[phis[0]] / amplitude, "analytic": shape,
            "deviation": deviations[0],
            "worst": max((d for d in deviations if d is not None), default=None),
            "rate_deviation": _deviation(data[dphis[0]] / amplitude, rate) if dphis else None,
            "rows": len(phis)})
    return cases


IMPULSE_HEADER = ["problem", "α", "β", "regime", "response", "stepper", "rows", "max dev. Φ_0",
                  "max dev. all Φ rows", "max dev. ψ_0"]
IMPULSE_DOC = "impulse_response.md"
MAX_CASES_PER_PANEL = 6
CASE_MARKERS = ["o", "s", "^", "D", "v", "P"]


@style.figure_function
def impulse(rows, results_dir, out_dir=None):
    """Constraint error after an initial perturbation against the closed-form impulse and free
    responses, a panel per response and damping regime (at most two rows of panels)."""
    perturbed = [r for r in rows if r["method"] == "baumgarte"
                 and (r["perturbation_position"] or r["perturbation_velocity"])]
    if not perturbed:
        raise Skipped("no baumgarte run with an initial perturbation (record field "
                      "initial.perturbation)")
    cases = impulse_cases(rows, results_dir)
    if not cases:
        raise Skipped("perturbed baumgarte runs, but none ended ok with phi_i columns in its "
                      "series CSV and a pure position or pure velocity perturbation")
    # One panel per (response, regime): a row of impulse responses, a row of free responses.
    present = [(response, k, text) for response in ("impulse", "free") for k, text in REGIMES
               if any(c["regime"] == k and c["kind"] == response for c in cases)]
    cols = max(sum(1 for p in present if p[0] == response) for response in ("impulse", "free"))
    cols = min(cols, style.max_columns(2.2))
    fig, axes = style.flow(len(present), cols, 0.8 * style.width() / cols)
    # A run's marker and colour by problem and stepper setting, the same in every panel.
    run_styles, entries = {}, [("closed form", {"color": "black", "linestyle": "-"}, "line")]
    notes = []
    for ax, (response, kind, text) in zip(axes, present):
        mine = [c for c in cases if c["regime"] == kind and c["kind"] == response]
        # One gain pair per panel: that of [Notes-Baumgarte-ja] when present, else the first run's.
        pair = SOURCE_GAINS[kind] if any((c["alpha"], c["beta"]) == SOURCE_GAINS[kind]
                                       for c in mine) else (mine[0]["alpha"], mine[0]["beta"])
        others = len({(c["alpha"], c["beta"]) for c in mine}) - 1
        mine = [c for c in mine if (c["alpha"], c["beta"]) == pair]
        # Per problem the run closest to the closed form (all runs are in the table).
        best = {}
        for c in mine:
            label = c["row"]["problem_label"]
            if label not in best or (c["deviation"] or math.inf) < (best[label]["deviation"]
                                                                      or math.inf):
                best[label] = c
        shown = list(best.values())[:MAX_CASES_PER_PANEL]
        response_of = impulse_response if response == "impulse" else free_response
        t_max = max(float(np.nanmax(c["t"])) for c in shown)
        t = np.linspace(0, t_max, 2000)
        shape = response_of(pair[0], pair[1], t)[0]
        # Time window: until the response has decayed to 1 % of its peak (and 30 % beyond).
        above = np.nonzero(np.abs(shape) > 0.01 * np.max(np.abs(shape)))[0]
        t_window = min(t_max, 1.3 * t[above[-1]]) if above.size else t_max
        keep = t <= t_window
        symbol = "w" if response == "impulse" else "p"
        ax.plot(t[keep], shape[keep], color="black", linewidth=1.0)
        deviations = []
        for c in shown:
            r = c["row"]
            who = (names.problem_label(r["problem_label"]), names.stepper(r["stepper"]),
                   r["setting"])
            if who not in run_styles:
                i = len(run_styles)
                run_styles[who] = {"color": plot.method_style("baumgarte")["color"] if i == 0
                                   else f"C{i}", "marker": CASE_MARKERS[i % len(CASE_MARKERS)],
                                   "markerfacecolor": "none", "linestyle": "none",
                                   "markersize": 4.0}
                entries.append((f"{who[0]}, {who[1]} {who[2]}", run_styles[who], "marker"))
            inside = np.nonzero(c["t"] <= t_window)[0]
            inside = inside[::max(1, len(inside) // 40)]
            ax.plot(c["t"][inside], c["phi0"][inside], **run_styles[who])
            deviations.append((dict(run_styles[who]), f"{plot.fmt(c['deviation'], '.0e')}"))
        more = len(mine) - len(shown)
        if more or others:
            notes.append((text, response, more, others))
        ax.set_title(style.fit_lines([f"{text} (α = {pair[0]:g}, β = {pair[1]:g})",
                                      "velocity impulse w" if response == "impulse"
                                      else "offset p"],
                                     style.width() / cols - 0.5))
        ax.set_xlabel("t [s]")
        ax.set_ylabel(f"Φ_0 / {symbol}" + (" [s]" if response == "impulse" else " [–]"))
        ax.grid(True, alpha=0.3)
        plot.number_legend(ax, deviations, "deviation", filled=False)
    style.finish(fig, entries)
    files = plot.save(fig, out_dir or results_dir, "impulse_response")
    table = []
    for c in cases:
        r = c["row"]
        table.append([r["problem_label"], f"{c['alpha']:g}", f"{c['beta']:g}", c["regime"],
                      c["kind"], f"{r['stepper']} {r['setting']}", str(c["rows"]),
                      plot.fmt(c["deviation"]), plot.fmt(c["worst"]),
                      plot.fmt(c["rate_deviation"])])
    write_atomic(f"{out_dir or results_dir}/{IMPULSE_DOC}",
                 "Maximum over the samples of |simulated − analytic| / max |analytic| of the "
                 "normalized constraint error (Φ_i/w for a velocity impulse, Φ_i/p for a "
                 "position offset), and of ψ_0 against the analytic rate.\n\n"
                 + plot.markdown_table(IMPULSE_HEADER, table))
    return result("impulse_response", "Baumgarte impulse response",
                  "Constraint error of perturbed baumgarte runs against the closed-form "
                  "solution of Φ̈ + 2αΦ̇ + β²Φ = 0, one panel per damping regime (and per "
                  "kind of perturbation) for one gain pair (those of [Notes-Baumgarte-ja] in "
                  "docs/sources.md, α, β = 10, 20; 20, 20; "
                  "20, 10 when present): markers the "
                  "simulated Φ_0 normalized by the perturbation, lines the impulse response h "
                  "(Φ(0) = 0, Φ̇(0) = w) or the free response g (Φ(0) = p, Φ̇(0) = 0), up to "
                  "its decay to 1 % of the peak. Φ_0/w is in seconds (Φ_0 in the row's unit, w in "
                  "that unit per second), Φ_0/p is dimensionless. Per problem the run closest "
                  "to the closed form is shown, its marker the same in every panel; the small "
                  "legend of a panel gives its deviation, max |simulated − analytic| / max "
                  "|analytic|. The table lists every perturbed run"
                  + (" (the panels show one gain pair each; the table holds the others)."
                     if notes else "."), files,
                  [{"title": "Deviation from the analytic response", "md": IMPULSE_DOC,
                    "tex": None, "header": IMPULSE_HEADER, "rows": table}],
                  data=cases)
