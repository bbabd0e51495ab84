"""bead_on_rotating_wire — a bead on a straight wire spun at a constant rate (closed-form reference)

A bead of mass m slides without friction on a straight wire through the origin that turns in the
horizontal plane at the constant rate Ω (no gravity in the plane). Coordinates: the bead's
position (x, y). Its one holonomic row keeps it on the wire, −x sin Ωt + y cos Ωt = 0 (m), which
depends on time: the drive does work, so no energy is conserved.

Along the wire the bead obeys r̈ = Ω² r (the wire's force is normal to it), so released at r0
with no speed along the wire it moves as r(t) = r0 cosh(Ωt), and the outputs are
x = r cos Ωt, y = r sin Ωt. That closed form is the reference (test only; defined for the tests
of cmbench.derive's analytic references).

Parameters: m mass [kg], Omega spin rate [rad/s], r0 start radius [m].
Fails when: nothing here; Ωt of a few units already takes the bead far out (cosh grows fast).
"""
import sympy as sm

x, y, vx, vy = sm.symbols("x y v_x v_y")
t = sm.symbols("t")
m, rate, r0 = sm.symbols("m Omega r0")
r = r0 * sm.cosh(rate * t)

MODEL = dict(
    id="bead_on_rotating_wire",
    title="Bead on a straight wire spun at a constant rate (test only)",
    display_name="Bead on a rotating wire",
    units=dict(outputs={"x": "m", "y": "m"}, holonomic=["m"]),
    summary="test-only rheonomic model with a closed-form reference r0 cosh(Omega t)",
    source="defined for the tests of cmbench.derive",
    t_end=2.0,
    time=t,
    coordinates=[x, y],
    speeds=[vx, vy],
    kinetic=m * (vx**2 + vy**2) / 2,
    holonomic=[-x * sm.sin(rate * t) + y * sm.cos(rate * t)],
    parameters={m: (1.0, "mass [kg]", "> 0"), rate: (1.0, "spin rate of the wire [rad/s]"),
                r0: (0.5, "start radius [m]", "> 0")},
    initial={x: r0, y: 0, vx: 0, vy: r0 * rate},
    outputs={"x": x, "y": y},
    reference=dict(analytic=dict(
        outputs={"x": r * sm.cos(rate * t), "y": r * sm.sin(rate * t)},
        provenance="r(t) = r0 cosh(Omega t) along the wire: r'' = Omega^2 r, released at rest "
                   "relative to the wire",
        accuracy=1e-14)),
)
