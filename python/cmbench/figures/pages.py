"""Figures split into pages: no figure the report writes is taller than MAX_HEIGHT inches.

A figure is drawn from units that stay together on a page (a problem case's row of panels, a
panel, a problem's pair of drift panels, a heat-map pair). save_pages puts as many units on a
page as fit: it starts from an estimate (units_per_page), draws the page, and when the page came
out taller than MAX_HEIGHT draws it again with one unit fewer, so the bound holds whatever the
estimate. One page is written as NAME.pdf and NAME.png, several as NAME_1, NAME_2, ... (in the
order of the units). A single unit taller than a page on its own is written as it is (no figure
of the report has one: a row of panels is at most a few inches high).
"""
import math

from .. import style

MAX_HEIGHT = 9.0  # inches: the text height of a letter or A4 page less its margins


def caption(page_count):
    """The caption's sentence for a figure split into page_count pages ("" for one page)."""
    if page_count <= 1:
        return ""
    return (f" On {page_count} pages of at most {MAX_HEIGHT:g} in, in the order of the "
            "campaign's problems.")


def units_per_page(row_height, units_per_row=1, rows_per_unit=1, reserve=0.0):
    """How many units fit on a page of MAX_HEIGHT inches whose panel rows are row_height high,
    units_per_row units to a row (or rows_per_unit rows to a unit), with `reserve` inches for
    the legend and margins (style.legend_height)."""
    rows = max(1, math.floor((MAX_HEIGHT - reserve) / max(row_height, 1e-9) + 1e-9))
    return max(1, (rows // max(1, rows_per_unit)) * max(1, units_per_row))


def too_tall(fig):
    """Whether a figure is taller than a page."""
    return fig.get_size_inches()[1] > MAX_HEIGHT + 1e-6


def page_names(name, pages):
    """['NAME'] for one page, ['NAME_1', 'NAME_2', ...] for several."""
    return [name] if pages == 1 else [f"{name}_{i}" for i in range(1, pages + 1)]


def balanced(count, per_page):
    """At most per_page units a page, spread evenly over as few pages as that needs (9 units at
    7 a page: pages of 5 and 4, not 7 and 2)."""
    per_page = max(1, per_page)
    if count <= per_page:
        return max(1, count)
    return math.ceil(count / math.ceil(count / per_page))


def split(units, per_page, draw, discard=None):
    """Figures of the units, as many units on each as fit a page: draw(units of one page) returns
    a finished figure (legend laid out, not saved); pages are balanced (balanced), and a page
    taller than MAX_HEIGHT is drawn again with one unit fewer (the taller one handed to
    discard, by default closed). Returns [(figure, its units)] in order."""
    units = list(units)
    per_page = balanced(len(units), per_page)
    out, start = [], 0
    while start < len(units):
        count = min(per_page, len(units) - start)
        while True:
            fig = draw(units[start:start + count])
            if count == 1 or not too_tall(fig):
                break
            (discard or style.pyplot().close)(fig)
            count -= 1
        out.append((fig, units[start:start + count]))
        per_page = count  # later pages are alike: start from what fitted
        start += count
    return out


def save_pages(units, per_page, draw, out_dir, name):
    """Draws the units on pages (split) and writes them (style.save): NAME.pdf/png for one page,
    NAME_1, NAME_2, ... for several. Returns (the paths written, [units of each page])."""
    pages = split(units, per_page, draw)
    paths = []
    for (fig, _), page_name in zip(pages, page_names(name, len(pages))):
        paths += style.save(fig, out_dir, page_name)
    return paths, [units for _, units in pages]

class PanelPages:
    """How a figure plan with `panels`, `geometry` (plot.facet_geometry's) and legend `entries`
    splits into pages: the units kept together, how many fit a page, a page's panels."""

    def units(self):
        """What stays together on a page: a case (a grid row) or a panel (flowing)."""
        if self.geometry["kind"] == "grid":
            return list(dict.fromkeys(p["case"] for p in self.panels))
        return list(range(len(self.panels)))

    def per_page(self):
        """Units per page (an estimate that pages.split corrects)."""
        per_row = 1 if self.geometry["kind"] == "grid" else self.geometry["cols"]
        return units_per_page(self.geometry["row_height"], per_row,
                                    reserve=style.legend_height(self.entries) + 0.1)

    def page(self, units):
        """The panels of a page's units."""
        if self.geometry["kind"] == "grid":
            return [p for p in self.panels if p["case"] in units]
        return [self.panels[i] for i in units]
