"""bead_on_parabola — a bead on a parabolic wire under gravity (the model check_extension adds)

A bead of mass m slides without friction on the wire y = x²/(2a) in a vertical plane, gravity g
along −y, released at rest at x = x0. Coordinates: its position (x, y); one holonomic row
y − x²/(2a) = 0 (m). The energy m (ẋ² + ẏ²)/2 + m g y is conserved.

Reference: the same bead in its one coordinate along the wire, x, with
T = m (1 + x²/a²) ẋ²/2 and V = m g x²/(2a), integrated by Bulirsch–Stoer (a reduced ODE).
Written for scripts/check_extension.sh, which generates it from outside the tree into a copy of
it to show that a problem is its generated files plus one line of problems/problems.def.

Parameters: m mass [kg], g gravity [m/s²], a the wire's focal scale [m], x0 release point [m].
Fails when: nothing here; the motion is a smooth periodic swing.
"""
import sympy as sm

x, y, vx, vy, xr, ur = sm.symbols("x y v_x v_y x_r u_r")
m, g, a, x0 = sm.symbols("m g a x0")

MODEL = dict(
    id="bead_on_parabola",
    title="Bead on a parabolic wire under gravity",
    display_name="Bead on a parabola",
    units=dict(outputs={"x": "m", "y": "m"}, holonomic=["m"]),
    summary="bead sliding on the wire y = x^2/(2a) under gravity; reduced-ODE reference",
    source="defined for scripts/check_extension.sh",
    t_end=5.0,
    coordinates=[x, y],
    speeds=[vx, vy],
    kinetic=m * (vx**2 + vy**2) / 2,
    potential=m * g * y,
    holonomic=[y - x**2 / (2 * a)],
    parameters={m: (1.0, "mass [kg]", "> 0"), g: (9.81, "gravity along -y [m/s^2]", ">= 0"),
                a: (0.5, "focal scale of the wire [m]", "> 0"),
                x0: (0.4, "release point [m]")},
    initial={x: x0, y: x0**2 / (2 * a), vx: 0, vy: 0},
    outputs={"x": x, "y": y},
    energy=m * (vx**2 + vy**2) / 2 + m * g * y,
    reference=dict(
        coordinates=[xr], speeds=[ur],
        kinetic=m * (1 + xr**2 / a**2) * ur**2 / 2, potential=m * g * xr**2 / (2 * a),
        initial={xr: x0, ur: 0}, outputs={"x": xr, "y": xr**2 / (2 * a)},
        provenance="the bead in its one coordinate x along the wire (reduced ODE)",
        accuracy=1e-10),
)
