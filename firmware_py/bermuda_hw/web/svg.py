"""The board as SVG, drawn from the board file: sea, land, paths, spaces, ports, berths, dots.

Coordinates are the board frame's millimetres (the viewBox), so the page
places ships, the cloud and highlights with the same numbers the rules use.
Every place has `id="place-<id>"`; empty layers wait for the page's live
drawing: the cloud's path, heat rings, fix highlights, ships and the cloud.
"""

from __future__ import annotations

from html import escape

from bermuda_hw.rules.board import Board

LAYERS = ("layer-path", "layer-heat", "layer-fix", "layer-ships", "layer-cloud")


def _f(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def board_svg(board: Board) -> str:
    """The static board drawing, with empty layers for the live state."""
    w, h = board.width_mm, board.height_mm
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="board-svg" viewBox="0 0 {_f(w)} {_f(h)}" '
        f'role="img" aria-label="the board {escape(board.name)}">',
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="3" height="6" fill="#fff" '
        'fill-opacity="0.55"/></pattern></defs>',
        f'<rect class="sea" x="0" y="0" width="{_f(w)}" height="{_f(h)}"/>',
    ]
    for polygon in board.land:
        points = " ".join(f"{_f(x)},{_f(y)}" for x, y in polygon)
        out.append(f'<polygon class="land" points="{points}"/>')
    drawn: set[frozenset[str]] = set()
    out.append('<g class="paths">')
    for a, neighbours in sorted(board.adjacency.items()):
        for b in sorted(neighbours):
            pair = frozenset((a, b))
            if pair in drawn:
                continue
            drawn.add(pair)
            sa, sb = board.spaces[a], board.spaces[b]
            out.append(
                f'<line x1="{_f(sa.x_mm)}" y1="{_f(sa.y_mm)}" x2="{_f(sb.x_mm)}" '
                f'y2="{_f(sb.y_mm)}"/>'
            )
    out.append("</g>")
    grid = board.grid
    out.append('<g class="dots">')
    for col, row in grid.dots():
        x, y = grid.dot_mm(col, row)
        cls = "dot outside" if grid.is_outside(col, row) else "dot"
        out.append(f'<circle class="{cls}" cx="{_f(x)}" cy="{_f(y)}" r="2.2"/>')
    cx, cy = grid.dot_mm(*grid.centre)
    out.append(f'<circle class="centre" cx="{_f(cx)}" cy="{_f(cy)}" r="9"/>')
    out.append("</g>")
    out.append('<g class="places">')
    for space in board.spaces.values():
        if space.kind != "path":
            continue
        heading = space.heading_deg or 0.0
        out.append(
            f'<g class="place space" id="place-{escape(space.id)}" data-place="{escape(space.id)}"'
            f' transform="translate({_f(space.x_mm)} {_f(space.y_mm)})">'
            f'<ellipse rx="6" ry="13" transform="rotate({_f(heading)})"/>'
            f'<text class="label" y="22">{escape(space.id)}</text></g>'
        )
    for port in board.ports.values():
        out.append(
            f'<g class="place port" id="place-{escape(port.id)}" data-place="{escape(port.id)}">'
            f'<circle cx="{_f(port.x_mm)}" cy="{_f(port.y_mm)}" r="30"/>'
            f'<text class="port-label" x="{_f(port.x_mm)}" y="{_f(port.y_mm - 33)}">'
            f"{escape(port.id)}</text>"
        )
        for bx, by in port.berths:
            out.append(f'<circle class="berth" cx="{_f(bx)}" cy="{_f(by)}" r="4"/>')
        out.append("</g>")
    out.append("</g>")
    out.extend(f'<g id="{layer}"/>' for layer in LAYERS)
    out.append("</svg>")
    return "\n".join(out)
