"""The supply-centre chart: one line per power over the game's years, as SVG."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from mailjudge.render.board.style import power_colour

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 40, 110, 16, 34


def centre_chart(
    years: Sequence[tuple[int, dict[str, int]]],
    powers: Sequence[str],
    most: int = 18,
    titles: Mapping[str, str] | None = None,
) -> str:
    """``years``: (year, centres per power) in order. Powers with no centres are at 0.
    ``titles``: each power's name for people (the map's), else its code in title case."""
    order = tuple(powers)
    shown = {p: (titles or {}).get(p) or p.title() for p in order}
    top = max([most] + [n for _, counts in years for n in counts.values()])
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM
    first = years[0][0] if years else 1901
    last = years[-1][0] if years else 1901

    def x(year: int) -> float:
        return LEFT + (span_x * (year - first) / (last - first) if last > first else span_x / 2)

    def y(count: int) -> float:
        return TOP + span_y * (1 - count / top)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" class="centre-chart" '
        'aria-label="Supply centres of each power, year by year">',
        "<title>Supply centres of each power, year by year</title>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
    ]
    for count in range(0, top + 1, 3 if top > 12 else 1):
        parts.append(
            f'<line x1="{LEFT}" y1="{y(count):.1f}" x2="{WIDTH - RIGHT}" y2="{y(count):.1f}" '
            'stroke="#e3e3e3"/>'
            f'<text x="{LEFT - 6}" y="{y(count) + 4:.1f}" font-size="11" text-anchor="end" '
            f'fill="#555">{count}</text>'
        )
    step = max(1, (last - first) // 8 + 1) if last > first else 1
    for year, _ in years:
        if (year - first) % step == 0:
            parts.append(
                f'<text x="{x(year):.1f}" y="{HEIGHT - BOTTOM + 18}" font-size="11" '
                f'text-anchor="middle" fill="#555">{year}</text>'
            )
    for n, power in enumerate(order):
        colour = power_colour(power, order)
        points = " ".join(f"{x(year):.1f},{y(counts.get(power, 0)):.1f}" for year, counts in years)
        if len(years) > 1:
            parts.append(
                f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2.5"/>'
            )
        for year, counts in years:
            parts.append(
                f'<circle cx="{x(year):.1f}" cy="{y(counts.get(power, 0)):.1f}" r="3" '
                f'fill="{colour}"><title>{escape(shown[power])} {year}: '
                f"{counts.get(power, 0)}</title></circle>"
            )
        now = years[-1][1].get(power, 0) if years else 0
        parts.append(
            f'<rect x="{WIDTH - RIGHT + 12}" y="{TOP + n * 18}" width="12" height="12" '
            f'fill="{colour}"/><text x="{WIDTH - RIGHT + 30}" y="{TOP + n * 18 + 11}" '
            f'font-size="12" fill="#222">{escape(shown[power])} {now}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
