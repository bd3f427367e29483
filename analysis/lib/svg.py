# SPDX-License-Identifier: MIT
"""Inline SVG plots for scripts/report: every plot has an x axis with
ticks, gridlines and a label with its unit, a label for every row, each
run as a point, the median as a bar and its interval as a line, so a
reader sees the spread and the count, not one number.  Linear scales from
zero, so lengths compare; standard library only."""
import html
import math
import time

# A cell from too few runs prints its own, lower coverage beside it.
DEFAULT_NOTE = "dots: runs; bar: median; line: interval (95%, or the coverage printed)"

W_LABEL, W_PLOT, W_NOTE = 250, 480, 210
ROW, TOP, BOTTOM = 20, 34, 44


def nice_ticks(hi, count=6):
    """Round tick values from 0 covering hi."""
    if hi <= 0:
        return [0, 1]
    raw = hi / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    n = math.ceil(hi / step - 1e-9)
    return [round(i * step, 12) for i in range(n + 1)]


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if a >= div:
            return f"{v / div:.3g}{unit}"
    if a == 0:
        return "0"
    return f"{v:.3g}"


def esc(s):
    return html.escape(str(s), quote=True)


# Advance widths in em of the sans-serif a browser picks: the larger of
# DejaVu Sans' and Liberation Sans' (Arial's metrics), so a width computed
# here is at least what either draws.
_EM = {**{c: 0.636 for c in "0123456789"}, "%": 0.95, "+": 0.838, "-": 0.361, "\u2212": 0.838, ".": 0.318,
       ",": 0.318, " ": 0.318, ":": 0.337, "\u00b7": 0.318, "(": 0.39, ")": 0.39, "/": 0.337, "[": 0.39, "]": 0.39,
       "_": 0.556, "\u2026": 1.0, "\u00d7": 0.838, **{c: 0.35 for c in "fijlrt"}, **{c: 0.98 for c in "mwMW@"}}


def text_width(s, size=11):
    """The width of s drawn at font-size size, in the SVG's units."""
    return size * sum(_EM.get(c, 0.62 if c.islower() else 0.78 if c.isupper() else 0.7) for c in s)


def fit(s, width, size=11):
    """s, cut with an ellipsis to fit width."""
    if text_width(s, size) <= width:
        return s
    while s and text_width(s + "\u2026", size) > width:
        s = s[:-1]
    return s.rstrip() + "\u2026"


def _axis(x0, y, width, ticks, scale, unit, height):
    out = [f'<g class="axis x" data-unit="{esc(unit)}">',
           f'<line x1="{x0}" y1="{y}" x2="{x0 + width}" y2="{y}" stroke="#000"/>']
    for t in ticks:
        x = x0 + scale(t)
        out.append(f'<g class="tick"><line x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" y2="{y}" stroke="#ddd"/>'
                   f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 5}" stroke="#000"/>'
                   f'<text x="{x:.1f}" y="{y + 17}" text-anchor="middle">{esc(fmt(t))}</text></g>')
    out.append(f'<text class="axis-label" x="{x0 + width / 2:.1f}" y="{y + 34}" text-anchor="middle">'
               f'{esc(unit)}</text></g>')
    return out


def dot_plot(title, unit, rows, note=""):
    """rows: [(label, colour, [values], (median, lo, hi, coverage))]; each
    value one run.  Returns an <svg> string, or a sentence when empty."""
    rows = [r for r in rows if r[2]]
    if not rows:
        return f"<p>{esc(title)}: nothing measured.</p>"
    hi = max(max(r[2]) for r in rows)
    lo_all = min(min(r[2]) for r in rows)
    # One stalled run must not stretch the axis until every median reads 0
    # (with few runs the median's interval reaches it too): past 3x the
    # largest median, runs and interval ends are drawn at the axis' edge
    # and the runs counted.
    robust = 3 * max(r[3][0] for r in rows)
    clipped = 0
    if robust > 0 and hi > robust:
        hi = robust
        clipped = sum(v > hi for r in rows for v in r[2])
    if lo_all < 0:   # a net cost can be a hair below zero: keep zero in view
        hi = max(hi, -lo_all)
    ticks = nice_ticks(hi * 1.02)
    top = ticks[-1] or 1
    if clipped:
        far = max(max(r[2]) for r in rows)
        note = (note or DEFAULT_NOTE) + (
            f"; {clipped} run{'s' * (clipped != 1)} past the axis (up to {fmt(far)} {unit}), drawn at its edge")
    lo_t = min(0.0, lo_all)
    scale = lambda v: (v - lo_t) / (top - lo_t) * W_PLOT  # noqa: E731
    h = TOP + ROW * len(rows) + BOTTOM
    width = W_LABEL + W_PLOT + W_NOTE
    out = [f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h}" '
           f'font-family="sans-serif" font-size="11" role="img" aria-label="{esc(title)}">',
           f'<title>{esc(title)}</title>',
           f'<text class="plot-title" x="4" y="14" font-weight="bold">{esc(title)}</text>',
           f'<text x="4" y="27" fill="#555">{esc(note or DEFAULT_NOTE)}</text>']
    y_axis = TOP + ROW * len(rows) + 4
    out += _axis(W_LABEL, y_axis, W_PLOT, [t for t in ticks], scale, unit, h)
    out.append(f'<line class="axis y" x1="{W_LABEL + scale(0):.1f}" y1="{TOP - 6}" x2="{W_LABEL + scale(0):.1f}" '
               f'y2="{y_axis}" stroke="#000"/>')
    for i, (label, colour, values, (med, lo, hi_ci, cover)) in enumerate(rows):
        y = TOP + i * ROW + ROW / 2
        out.append(f'<g class="row" data-n="{len(values)}">')
        out.append(f'<text class="row-label" x="{W_LABEL - 8}" y="{y + 4:.1f}" text-anchor="end">{esc(label)}</text>')
        out.append(f'<rect x="{W_LABEL + scale(0):.1f}" y="{y - 6:.1f}" width="{max(scale(med) - scale(0), 0.5):.1f}" '
                   f'height="12" fill="{colour}" fill-opacity="0.25"/>')
        if lo is not None:
            out.append(f'<line class="interval" x1="{W_LABEL + scale(min(lo, top)):.1f}" y1="{y:.1f}" x2="{W_LABEL + scale(min(hi_ci, top)):.1f}" '
                       f'y2="{y:.1f}" stroke="#000" stroke-width="1.5"/>')
        out.append(f'<line class="median" x1="{W_LABEL + scale(med):.1f}" y1="{y - 7:.1f}" '
                   f'x2="{W_LABEL + scale(med):.1f}" y2="{y + 7:.1f}" stroke="{colour}" stroke-width="3"/>')
        for v in values:
            edge = v > top
            out.append(f'<circle class="point" cx="{W_LABEL + scale(min(v, top)):.1f}" cy="{y:.1f}" r="2.5" '
                       f'fill="{"#fff" if edge else colour}" stroke="#000" stroke-width="0.4"'
                       f'{" data-clipped=" + chr(34) + "1" + chr(34) if edge else ""}>'
                       f'<title>{esc(fmt(v))} {esc(unit)}{" (past the axis)" if edge else ""}</title></circle>')
            if edge:
                out.append(f'<text class="clipped" x="{W_LABEL + scale(top) + 4:.1f}" y="{y + 4:.1f}">&#9654;</text>')
        ci = f"[{fmt(lo)}, {fmt(hi_ci)}]" + ("" if cover >= 0.95 else f" {cover * 100:.0f}%") if lo is not None else ""
        out.append(f'<text class="row-note" x="{W_LABEL + W_PLOT + 8}" y="{y + 4:.1f}">{esc(fmt(med))} {esc(ci)} '
                   f'n={len(values)}</text></g>')
    out.append("</svg>")
    return "\n".join(out)


# One style per line of a history plot: ten colours told apart (Tableau
# 10), then the same dashed, then dotted.
LINE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                "#bcbd22", "#17becf")
LINE_DASHES = ("", "7 3", "2 2")


def line_styles(n):
    """n different (colour, dash) pairs, the plain colours first."""
    return [(LINE_COLOURS[i % len(LINE_COLOURS)], LINE_DASHES[(i // len(LINE_COLOURS)) % len(LINE_DASHES)])
            for i in range(n)]


# A time axis' label formats, coarsest first; the year only where the
# axis crosses one.
TIME_FORMATS = ("%m-%d %H:%M", "%m-%d %H:%M:%S")
YEAR_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S")


def time_ticks(t0, t1, width, size=11):
    """[(t, label)] for a time axis from t0 to t1 (whole seconds, t1 > t0)
    drawn over width: as many evenly spaced ticks as fit, 5 at most, each
    labelled in the coarsest format that tells every two adjacent ticks
    apart (seconds where nights are a minute apart, the year where the axis
    crosses one), labels at least TICK_GAP apart.  Two ticks a second or
    more apart always differ, so the axis never repeats a label."""
    gm = time.gmtime
    formats = YEAR_FORMATS if gm(t0).tm_year != gm(t1).tm_year else TIME_FORMATS + YEAR_FORMATS[1:]
    for n in (5, 4, 3, 2):
        ts = [t0 + (t1 - t0) * k / (n - 1) for k in range(n)]
        for f in formats:
            labels = [time.strftime(f, gm(t)) for t in ts]
            if any(a == b for a, b in zip(labels, labels[1:])):
                continue
            if width / (n - 1) < max(text_width(x, size) for x in labels) + TICK_GAP:
                continue
            return list(zip(ts, labels))
    return [(t, time.strftime(formats[-1], gm(t))) for t in (t0, t1)]


def line_plot(title, unit, series, xlabel="run start (UTC)"):
    """series: [(label, [(t_epoch, value, text)])]: history across nights,
    each line in a colour (and dash) of its own, named in the legend."""
    series = [s for s in series if len(s[1]) >= 2]
    if not series:
        return ""
    ts = [p[0] for s in series for p in s[1]]
    # Whole seconds, at least one apart: the tick labels can then differ.
    t0, t1 = math.floor(min(ts)), math.ceil(max(ts))
    t1 = max(t1, t0 + 1)
    span = t1 - t0
    hi = max(p[1] for s in series for p in s[1])
    ticks = nice_ticks(hi * 1.05)
    top = ticks[-1] or 1
    plot_h = 180
    h = TOP + plot_h + BOTTOM + 16 * len(series)
    left = 70
    xs = lambda t: left + (t - t0) / span * W_PLOT  # noqa: E731
    ys = lambda v: TOP + plot_h - v / top * plot_h  # noqa: E731
    xticks = time_ticks(t0, t1, W_PLOT)
    # room on the right for the last label, centred on the axis' end
    right = max(40, math.ceil(text_width(xticks[-1][1]) / 2) + 4)
    out = [f'<svg class="plot history" xmlns="http://www.w3.org/2000/svg" width="{left + W_PLOT + right}" height="{h}" '
           f'font-family="sans-serif" font-size="11" role="img" aria-label="{esc(title)}">',
           f'<title>{esc(title)}</title>',
           f'<text class="plot-title" x="4" y="14" font-weight="bold">{esc(title)}</text>',
           f'<g class="axis y" data-unit="{esc(unit)}"><line x1="{left}" y1="{TOP}" x2="{left}" y2="{TOP + plot_h}" stroke="#000"/>']
    for t in ticks:
        y = ys(t)
        out.append(f'<g class="tick"><line x1="{left}" y1="{y:.1f}" x2="{left + W_PLOT}" y2="{y:.1f}" stroke="#ddd"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{esc(fmt(t))}</text></g>')
    out.append(f'<text class="axis-label" x="12" y="{TOP + plot_h / 2:.1f}" transform="rotate(-90 12 {TOP + plot_h / 2:.1f})" '
               f'text-anchor="middle">{esc(unit)}</text></g>')
    out.append(f'<g class="axis x"><line x1="{left}" y1="{TOP + plot_h}" x2="{left + W_PLOT}" y2="{TOP + plot_h}" stroke="#000"/>')
    for t, label in xticks:
        out.append(f'<g class="tick"><line x1="{xs(t):.1f}" y1="{TOP + plot_h}" x2="{xs(t):.1f}" y2="{TOP + plot_h + 5}" '
                   f'stroke="#000"/><text x="{xs(t):.1f}" y="{TOP + plot_h + 17}" text-anchor="middle">'
                   f'{esc(label)}</text></g>')
    out.append(f'<text class="axis-label" x="{left + W_PLOT / 2}" y="{TOP + plot_h + 32}" text-anchor="middle">'
               f'{esc(xlabel)}</text></g>')
    for i, ((label, pts), (colour, dash)) in enumerate(zip(series, line_styles(len(series)))):
        pts = sorted(pts)
        d = " ".join(f"{xs(t):.1f},{ys(v):.1f}" for t, v, _ in pts)
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<g class="line" data-label="{esc(label)}"><polyline points="{d}" fill="none" stroke="{colour}" '
                   f'stroke-width="1.5"{dashed}/>')
        for t, v, text in pts:
            out.append(f'<circle class="point" cx="{xs(t):.1f}" cy="{ys(v):.1f}" r="2.5" fill="{colour}">'
                       f'<title>{esc(text)}</title></circle>')
        out.append("</g>")
        ly = TOP + plot_h + BOTTOM + 16 * i
        out.append(f'<g class="legend" data-label="{esc(label)}"><line x1="{left}" y1="{ly - 3}" x2="{left + 22}" '
                   f'y2="{ly - 3}" stroke="{colour}" stroke-width="2"{dashed}/>'
                   f'<text x="{left + 28}" y="{ly + 1}">{esc(label)}</text></g>')
    out.append("</svg>")
    return "\n".join(out)


# The change axis' ticks, most wanted first, in pairs that sit the same
# distance either side of no change on the log axis (the round -10% for
# 1/1.11 is 1.5 px off, too little to see).
CHANGE_TICKS = ((2.0, 0.5), (4.0, 0.25), (10.0, 0.1), (100.0, 0.01), (1.25, 0.8), (1.5, 0.67), (1.1, 0.9),
                (3.0, 0.33), (1.05, 0.95), (1.02, 0.98), (1.01, 0.99))
TICK_GAP = 6   # the least space between two tick labels


def change_label(t):
    return "0%" if t == 1 else f"{(t - 1) * 100:+.0f}%" if t < 10 else f"{t:.0f}\u00d7"


def change_ticks(span, xs, size=11):
    """The ticks of a log axis from exp(-span) to exp(span) whose labels do
    not overlap: no change, then each pair of CHANGE_TICKS inside the axis
    whose labels (centred on the tick, widths from text_width) keep
    TICK_GAP from every label placed before."""
    boxes, ticks = [], []

    def box(t):
        w = text_width(change_label(t), size) / 2 + TICK_GAP / 2
        return xs(t) - w, xs(t) + w

    for pair in ((1.0,),) + CHANGE_TICKS:
        if any(abs(math.log(t)) > span + 1e-9 for t in pair):
            continue
        new = [box(t) for t in pair]
        if all(b[1] <= a[0] or a[1] <= b[0] for a in new for b in boxes):
            boxes += new
            ticks += pair
    return sorted(ticks)


def change_plot(title, rows, note=""):
    """rows: [(label, colour, (est, lo, hi) as new/base ratios)], drawn in
    the order given.  A log axis centred on no change, wide enough for the
    intervals up to 4x either way; an interval past that is drawn to the
    edge with an arrow and counted in the note, so one wild run cannot
    flatten the rest."""
    rows = [r for r in rows if r[2] and r[2][0] and r[2][0] > 0]
    if not rows:
        return f"<p>{esc(title)}: nothing to compare.</p>"
    ends = [abs(math.log(x)) for _, _, (est, lo, hi) in rows for x in (est, lo, hi) if x and x > 0]
    span = min(max(max(ends) * 1.1, math.log(1.25)), math.log(4.0))
    # Labels name metric, scenario, variant and placement: a wider column
    # than the other plots', and a narrower one for the change (+712.5%),
    # for the same overall width.
    left, plot_w = W_LABEL + 138, W_PLOT
    xs = lambda r: left + (math.log(r) + span) / (2 * span) * plot_w  # noqa: E731
    h = TOP + ROW * len(rows) + BOTTOM + (16 if note else 0)
    out = [f'<svg class="plot change" xmlns="http://www.w3.org/2000/svg" width="{left + plot_w + W_NOTE - 130}" '
           f'height="{h}" font-family="sans-serif" font-size="11" role="img" aria-label="{esc(title)}">',
           f'<title>{esc(title)}</title>',
           f'<text class="plot-title" x="4" y="14" font-weight="bold">{esc(title)}</text>']
    y_axis = TOP + ROW * len(rows) + 4
    out.append(f'<g class="axis x" data-unit="%"><line x1="{left}" y1="{y_axis}" x2="{left + plot_w}" '
               f'y2="{y_axis}" stroke="#000"/>')
    for t in change_ticks(span, xs):
        x = xs(t)
        out.append(f'<g class="tick"><line x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" y2="{y_axis}" '
                   f'stroke="{"#888" if t == 1.0 else "#ddd"}"/>'
                   f'<text x="{x:.1f}" y="{y_axis + 14}" text-anchor="middle">{change_label(t)}</text></g>')
    out.append(f'<text class="axis-label" x="{left + plot_w / 2:.1f}" y="{y_axis + 30}" text-anchor="middle">'
               'change, new against base, % (log scale)</text></g>')
    clipped = 0
    lo_edge, hi_edge = math.exp(-span), math.exp(span)
    for i, (label, colour, (est, lo, hi)) in enumerate(rows):
        y = TOP + ROW * i + ROW / 2
        short = fit(label, left - 10)
        text = f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{esc(short)}</text>'
        out.append(text if short == label else f'<g class="cut"><title>{esc(label)}</title>{text}</g>')
        if lo and hi and lo > 0:
            a, b = max(lo, lo_edge), min(hi, hi_edge)
            out.append(f'<line class="interval" x1="{xs(a):.1f}" y1="{y:.1f}" x2="{xs(b):.1f}" y2="{y:.1f}" '
                       f'stroke="{colour}" stroke-width="2"/>')
        e = min(max(est, lo_edge), hi_edge)
        if e != est or (lo and lo < lo_edge) or (hi and hi > hi_edge):
            clipped += 1
            arrow = "&#9664;" if est < 1 else "&#9654;"
            out.append(f'<text class="clipped" x="{xs(e):.1f}" y="{y + 4:.1f}" text-anchor="middle" '
                       f'fill="{colour}">{arrow}</text>')
        else:
            out.append(f'<circle class="est" cx="{xs(e):.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>')
        out.append(f'<text x="{left + plot_w + 8}" y="{y + 4:.1f}">{(est - 1) * 100:+.1f}%</text>')
    if clipped or note:
        text = (f"{clipped} past the axis, drawn at its edge. " if clipped else "") + note
        out.append(f'<text class="note" x="4" y="{h - 4}">{esc(text)}</text>')
    out.append("</svg>")
    return "\n".join(out)
