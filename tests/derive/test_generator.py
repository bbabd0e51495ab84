#!/usr/bin/env python3
"""The generator itself (python3 -m cmbench.derive): what it derives is exact, what it refuses it
names, and --check tells a current generated file from a stale or missing one.
Usage: PYTHONPATH=python test_generator.py   (unittest; exit 0 when every test passes)
"""
import copy
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import sympy as sm
from hypothesis import given, settings as hypothesis_settings, strategies as st

from cmbench.derive import ModelError, derive
from cmbench.derive.__main__ import ROOT
from cmbench.derive.cxx import _comment, _literal, cpp_text
from cmbench.derive.model import T, arrays, read_model

q0, q1, q2, v0, v1, v2, t, r = sm.symbols("q0 q1 q2 v0 v1 v2 t r")
DOC = "toy — a test model.\n\nNothing more.\n"
# A particle in 3-D on a sphere whose radius r (1 + sin t / 10) breathes (rheonomic holonomic
# row), with a nonholonomic row whose matrix and right-hand side depend on q and t.
TOY = dict(
    id="toy", title="Toy", display_name="Toy", summary="toy", source="none", t_end=1.0, time=t,
    units=dict(outputs={"x": "m"}, holonomic=["m²"], nonholonomic=["m/s"]),
    coordinates=[q0, q1, q2], speeds=[v0, v1, v2],
    kinetic=(v0**2 + v1**2 + v2**2) / 2, potential=q2,
    holonomic=[q0**2 + q1**2 + q2**2 - (r * (1 + sm.sin(t) / 10))**2],
    nonholonomic=[q1 * v0 - sm.cos(t) * v2 + t * q0],
    parameters={r: (1.0, "radius", "> 0")},
    initial={q0: r, q1: 0, q2: 0, v0: r / 10, v1: sm.Rational(1, 2), v2: 0},
    outputs={"x": q0},
)

# The units of TOY without its nonholonomic row.
HOLONOMIC_ONLY = dict(outputs={"x": "m"}, holonomic=["m²"])


def model(**changes):
    declared = copy.copy(TOY)
    for key, value in changes.items():
        if value is None:
            declared.pop(key)
        else:
            declared[key] = value
    return read_model("toy.py", DOC, declared)


class Derivation(unittest.TestCase):
    def test_gamma_is_the_second_time_derivative_of_every_row(self):
        """Along any curve q(t), d/dt of each row's velocity form equals J q̈ − γ: γ is exact,
        time terms included, and ν is −Φ_t on the holonomic row and c on the nonholonomic one."""
        eq = derive(model())
        curve = [sm.Function(f"f{i}")(T) for i in range(3)]
        on_curve = {**dict(zip(arrays("q", 3), curve)),
                    **dict(zip(arrays("v", 3), [c.diff(T) for c in curve])),
                    sm.Symbol("k[0]"): r}
        J, nu, gamma = (eq.jacobian.xreplace(on_curve), eq.velocity_rhs.xreplace(on_curve),
                        eq.gamma.xreplace(on_curve))
        qdd = sm.Matrix([c.diff(T, 2) for c in curve])
        qd = sm.Matrix([c.diff(T) for c in curve])
        phi = eq.constraints.xreplace(on_curve)[0]
        # dΦ/dt along the curve = J q̇ + Φ_t, so ν = −Φ_t = J q̇ − dΦ/dt.
        self.assertEqual(sm.simplify(nu[0] - ((J[0, :] * qd)[0] - phi.diff(T))), 0)
        self.assertEqual(sm.simplify(phi.diff(T, 2) - ((J * qdd)[0] - gamma[0])), 0)
        g = TOY["nonholonomic"][0].xreplace({q0: curve[0], q1: curve[1], q2: curve[2], v0: qd[0],
                                              v1: qd[1], v2: qd[2]})
        self.assertEqual(sm.simplify((J[1, :] * qd)[0] - nu[1] - g), 0)
        self.assertEqual(sm.simplify(g.diff(T) - ((J * qdd)[1] - gamma[1])), 0)

    def test_tags_say_what_the_rows_are(self):
        self.assertEqual(derive(model()).tags, ["nonholonomic", "rheonomic"])
        scleronomic = model(holonomic=[q0**2 + q1**2 + q2**2 - r**2], nonholonomic=None,
                            units=HOLONOMIC_ONLY, initial={q0: r, q1: 0, q2: 0, v0: 0, v1: 1, v2: 0})
        self.assertEqual(derive(scleronomic).tags, [])
        self.assertIsNone(derive(scleronomic).velocity_rhs)

    def test_lagrange_equations_of_a_known_system(self):
        """A pendulum in polar-like coordinates with a rate-dependent force: M = diag(1, q0²),
        Q = (q0 v1² − 1 − v0, −2 q0 v0 v1) for T = (v0² + q0² v1²)/2, V = q0, F = (−v0, 0)."""
        eq = derive(model(kinetic=(v0**2 + q0**2 * v1**2 + v2**2) / 2, potential=q0,
                          forces=[-v0, 0, 0], nonholonomic=None, units=HOLONOMIC_ONLY,
                          holonomic=[q2], initial={q0: 1, q1: 0, q2: 0, v0: 0, v1: 1, v2: 0}))
        p, w = arrays("q", 3), arrays("v", 3)
        self.assertEqual(eq.mass_matrix, sm.diag(1, p[0]**2, 1))
        expected = sm.Matrix([p[0] * w[1]**2 - 1 - w[0], -2 * p[0] * w[0] * w[1], 0])
        self.assertEqual(sm.simplify(eq.forces - expected), sm.zeros(3, 1))


class Refusals(unittest.TestCase):
    def refused(self, phrase, **changes):
        with self.assertRaises(ModelError) as caught:
            derive(model(**changes))
        self.assertIn(phrase, str(caught.exception))

    def test_unknown_key(self):
        self.refused("unknown key(s) mass", mass=1)

    def test_undeclared_symbol(self):
        self.refused("undeclared symbol(s) a", holonomic=[q0 - sm.Symbol("a")])

    def test_potential_with_speeds(self):
        self.refused("may not depend on the speeds", potential=v0)

    def test_initial_state_with_coordinates(self):
        self.refused("may not depend on the coordinates", initial={**TOY["initial"], v1: q0})

    def test_nonholonomic_row_not_affine(self):
        self.refused("affine in the speeds", nonholonomic=[v0**2])

    def test_kinetic_energy_not_quadratic(self):
        self.refused("quadratic in the speeds", kinetic=v0**3 + v1**2 + v2**2)

    def test_inconsistent_initial_state(self):
        self.refused("violates the constraints", initial={**TOY["initial"], v0: 0})

    def test_missing_initial_value(self):
        self.refused("no value for v2", initial={q0: r, q1: 0, q2: 0, v0: r / 10, v1: 1})

    def test_both_kinetic_and_mass_matrix(self):
        self.refused("either kinetic", mass_matrix=sm.eye(3))

    def test_symbol_declared_twice(self):
        self.refused("declared as coordinates or speeds and as parameters", parameters={q0: (1.0, "x")})

    def test_default_outside_its_range(self):
        self.refused("outside its range", parameters={r: (-1.0, "radius", "> 0")})

    def test_summary_line_names_the_id(self):
        with self.assertRaises(ModelError) as caught:
            read_model("toy.py", "other — a test model.\n", TOY)
        self.assertIn("first line", str(caught.exception))

    def test_reference_outputs_must_match(self):
        a, b = sm.symbols("a b")
        self.refused("output names", reference=dict(
            coordinates=[a], speeds=[b], kinetic=b**2 / 2, initial={a: 1, b: 0}, outputs={"y": a},
            provenance="p", accuracy=1e-10))

    def test_reference_must_start_where_the_model_starts(self):
        a, b = sm.symbols("a b")
        self.refused("does not start where", reference=dict(
            coordinates=[a], speeds=[b], kinetic=b**2 / 2, initial={a: 2, b: 0}, outputs={"x": a},
            provenance="p", accuracy=1e-10))

    def test_units_that_do_not_fit_the_model(self):
        """Every way a units dict can miss the model's outputs or rows is refused, naming what
        is wrong; the good one is accepted and emitted in the entry as given."""
        good = TOY["units"]
        cases = [
            ("a dict with a unit for each output", {**good, "outputs": {}}),
            ("a dict with a unit for each output", {**good, "outputs": {"x": "m", "y": "m"}}),
            ("a dict with a unit for each output", {**good, "outputs": {"z": "m"}}),
            ("a unit is a non-empty string", {**good, "outputs": {"x": ""}}),
            ("a unit is a non-empty string", {**good, "outputs": {"x": 1}}),
            ("give their units", {**good, "holonomic": []}),
            ("give their units", {k: v for k, v in good.items() if k != "nonholonomic"}),
            ("a list of unit strings", {**good, "holonomic": "m"}),
            ("a list of unit strings", {**good, "holonomic": [""]}),
            ("unknown key(s) phi", {**good, "phi": ["m"]}),
            ("missing key(s) outputs", {"holonomic": ["m"]}),
            ("units: a dict", ["m"]),
        ]
        for phrase, units in cases:
            with self.subTest(units=units):
                self.refused(phrase, units=units)
        self.refused("has no nonholonomic rows; leave it out", nonholonomic=None,
                     holonomic=[q0**2 + q1**2 + q2**2 - r**2],
                     initial={q0: r, q1: 0, q2: 0, v0: 0, v1: 1, v2: 0})
        self.refused("display_name: a non-empty string", display_name=" ")
        self.refused("missing key(s) display_name, units", display_name=None, units=None)
        text = cpp_text(derive(model()), "test", "toy.inc")
        for line in ['entry.display_name = "Toy";', 'entry.units.outputs = {{"x", "m"}};',
                     'entry.units.holonomic = {"m²"};', 'entry.units.nonholonomic = {"m/s"};']:
            self.assertIn(line, text)

    def test_analytic_reference_refusals(self):
        good = dict(outputs={"x": r * (1 + sm.sin(t) / 10)}, provenance="p", accuracy=1e-12)
        self.refused("output names", reference=dict(analytic={**good, "outputs": {"y": r}}))
        self.refused("may not depend on the coordinates",
                     reference=dict(analytic={**good, "outputs": {"x": q0}}))
        self.refused("does not start where",
                     reference=dict(analytic={**good, "outputs": {"x": 2 * r}}))
        self.refused("missing key(s) accuracy",
                     reference=dict(analytic={"outputs": good["outputs"], "provenance": "p"}))
        self.refused("analytic stands alone", reference=dict(analytic=good, provenance="p"))

    def test_analytic_reference_is_emitted_as_analytic(self):
        ref = dict(outputs={"x": r * sm.cos(t)}, provenance="closed form", accuracy=1e-12)
        eq = derive(model(reference=dict(analytic=ref)))
        text = cpp_text(eq, "test", "toy.inc")
        self.assertIn("ReferenceKind::analytic", text)
        self.assertIn("gen::analytic_outputs(times[i], k_.data(), y.data());", text)
        self.assertNotIn("odeint", text)


class CommandLine(unittest.TestCase):
    MODEL = os.path.join(ROOT, "tests", "derive", "models", "driven_knife_edge.py")

    def derive_cli(self, *args, **env_changes):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), **env_changes)
        return subprocess.run([sys.executable, "-m", "cmbench.derive", *args], env=env,
                              capture_output=True, text=True)

    def test_an_installed_package_without_out_is_refused(self):
        """Outside a checkout (an installed package) there is no problems/ to write into: the
        generator writes nothing and says to give --out."""
        with tempfile.TemporaryDirectory() as site:
            shutil.copytree(os.path.join(ROOT, "python", "cmbench"),
                            os.path.join(site, "cmbench"),
                            ignore=shutil.ignore_patterns("__pycache__", "*.so", "bin"))
            before = sorted(os.listdir(site))
            env = dict(os.environ, PYTHONPATH=site)
            result = subprocess.run([sys.executable, "-m", "cmbench.derive", self.MODEL], env=env,
                                    capture_output=True, text=True)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn("give --out DIR", result.stderr)
            self.assertNotIn("Traceback", result.stderr)
            self.assertEqual(sorted(os.listdir(site)), before)

    def test_check_without_clang_format_compares_the_layout_free_text(self):
        """Without clang-format-14 the generator's own layout of a .cpp differs from the
        committed (formatted) file only in whitespace: --check still passes, and says why."""
        spherical = os.path.join(ROOT, "problems", "derive", "spherical_pendulum.py")
        result = self.derive_cli(spherical, "--check", PATH="/nonexistent", CLANG_FORMAT="")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("clang-format-14 not found", result.stderr)

    def test_check_finds_missing_stale_and_current_files(self):
        with tempfile.TemporaryDirectory() as out:
            missing = self.derive_cli(self.MODEL, "--out", out, "--check")
            self.assertEqual(missing.returncode, 1)
            self.assertEqual(self.derive_cli(self.MODEL, "--out", out).returncode, 0)
            self.assertEqual(self.derive_cli(self.MODEL, "--out", out, "--check").returncode, 0)
            with open(os.path.join(out, "driven_knife_edge.inc"), "a") as f:
                f.write("// edited\n")
            stale = self.derive_cli(self.MODEL, "--out", out, "--check")
            self.assertEqual(stale.returncode, 1)
            self.assertIn("driven_knife_edge.inc", stale.stderr)
            self.assertNotIn("driven_knife_edge.cpp", stale.stderr)

    def test_a_hand_written_file_of_the_same_id_is_not_replaced(self):
        """A problem file the generator did not write (no 'Generated by `python3 -m
        cmbench.derive' line in its opening comment) stays as it is, and so does everything
        else: exit 2 naming it, before either file is written."""
        with tempfile.TemporaryDirectory() as root:
            hand_written = os.path.join(root, "problems", "driven_knife_edge.cpp")
            os.makedirs(os.path.dirname(hand_written))
            text = ("// driven_knife_edge — written by hand.\n//\n// Generated by hand, not by "
                    "a script.\n#include <cmath>\n// Generated by `python3 -m cmbench.derive` "
                    "(a line below the opening comment does not count)\n")
            with open(hand_written, "w") as f:
                f.write(text)
            result = self.derive_cli(self.MODEL, "--root", root)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn("problems/driven_knife_edge.cpp: not written by python3 -m "
                          "cmbench.derive", result.stderr)
            with open(hand_written) as f:
                self.assertEqual(f.read(), text)
            self.assertEqual(os.listdir(os.path.join(root, "problems")), ["driven_knife_edge.cpp"])

    def test_its_own_files_are_generated_again(self):
        """Files it wrote, even edited since, are replaced by what the model gives now."""
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(self.derive_cli(self.MODEL, "--out", out).returncode, 0)
            written = {}
            for name in ("driven_knife_edge.inc", "driven_knife_edge.cpp"):
                with open(os.path.join(out, name)) as f:
                    written[name] = f.read()
                with open(os.path.join(out, name), "a") as f:
                    f.write("// edited\n")
            again = self.derive_cli(self.MODEL, "--out", out)
            self.assertEqual(again.returncode, 0, again.stderr)
            for name, text in written.items():
                with open(os.path.join(out, name)) as f:
                    self.assertEqual(f.read(), text)

    def test_a_model_not_in_the_form_exits_2_naming_the_problem(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bad.py")
            with open(path, "w") as f:
                f.write('"""bad — no model."""\nMODEL = dict(id="bad")\n')
            result = self.derive_cli(path, "--out", folder)
            self.assertEqual(result.returncode, 2)
            self.assertIn("missing key(s) title", result.stderr)


# Any text a model file can hold in a title, a summary, a unit or a path: every character but
# NUL and lone surrogates (which the model reader refuses), weighted towards the ones C++ treats
# specially (line ends, backslashes, quotes, control characters, digits after an escape).
SPECIAL = st.sampled_from(list('\n\r\t\\"\'?\x01\x07\x0b\x0c\x1b\x7f\x85\u2028 07/*') + ["*/", "\\\n"])
TEXT = st.lists(st.one_of(SPECIAL, st.characters(blacklist_categories=["Cs"],
                                                   blacklist_characters="\0")),
                max_size=40).map("".join)


class Emission(unittest.TestCase):
    """What the generator writes into C++ from a model's text: a string literal holds exactly
    the text's UTF-8 bytes, and a comment stays a comment, whatever the text (the compiler is the
    judge: one program per example, built and run)."""

    @hypothesis_settings(max_examples=6, derandomize=True, deadline=None, database=None)
    @given(st.lists(TEXT, min_size=1, max_size=25))
    def test_literals_and_comments_survive_any_text(self, texts):
        lines = ["#include <cstring>", "#include <string>"]
        for i, text in enumerate(texts):
            data = text.encode("utf-8")
            lines += [f"// {_comment(text)}", f"int after_comment_{i} = {i};",
                      f"const std::string literal_{i} = {_literal(text)};",
                      f"const unsigned char bytes_{i}[] = {{{', '.join(map(str, data)) or '0'}}};"]
        lines.append("int main() {")
        lines.append("  int sum = 0;")
        for i, text in enumerate(texts):
            size = len(text.encode("utf-8"))
            lines += [f"  sum += after_comment_{i};",
                      f"  if (literal_{i}.size() != {size} || "
                      f"std::memcmp(literal_{i}.data(), bytes_{i}, {size}) != 0) return {i + 1};"]
        lines.append(f"  return sum == {sum(range(len(texts)))} ? 0 : 255;")
        lines.append("}")
        with tempfile.TemporaryDirectory() as folder:
            source, program = os.path.join(folder, "emitted.cpp"), os.path.join(folder, "emitted")
            with open(source, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            built = subprocess.run(["c++", "-std=c++17", "-w", source, "-o", program],
                                   capture_output=True, text=True)
            self.assertEqual(built.returncode, 0, f"{texts!r}\n{built.stderr[:2000]}")
            ran = subprocess.run([program])
            self.assertEqual(ran.returncode, 0, f"text {ran.returncode - 1}: "
                                                f"{texts[ran.returncode - 1]!r}" if
                             0 < ran.returncode <= len(texts) else repr(texts))

    @hypothesis_settings(max_examples=40, derandomize=True, deadline=None, database=None)
    @given(TEXT.filter(lambda name: not name.isascii() or not name.isidentifier()
                       or name[:1] == "_"))
    def test_a_name_that_is_not_an_identifier_is_refused_wherever_it_goes(self, name):
        """Coordinates, parameters and outputs are named in the generated file's comments and
        identifiers: a name that is not a plain identifier (a newline at its end included) is
        refused, never written."""
        symbol = sm.Symbol(name or "_")
        with self.assertRaisesRegex(ModelError, "coordinate or speed .*a name like an identifier"):
            model(coordinates=[symbol, q1, q2])
        with self.assertRaisesRegex(ModelError, "named like an identifier"):
            model(parameters={symbol: (1.0, "radius", "> 0")})
        with self.assertRaisesRegex(ModelError, "a name like an identifier"):
            model(outputs={name: q0})
        with self.assertRaisesRegex(ModelError, "lower-case letters"):
            model(id=name)

if __name__ == "__main__":
    unittest.main()
