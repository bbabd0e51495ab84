"""driven_knife_edge — test-only model: a knife-edge body dragged along a prescribed path.

A planar body (mass m, inertia I about its centre C), q = (x, y, θ): C's position and the
body's heading. A rheonomic holonomic row drives C along x, Φ = x − a sin(Ω t) = 0, and a
nonholonomic row prescribes the knife edge's sideways slip, −sin θ ẋ + cos θ ẏ = s cos(Ω t):
both the row's right-hand side c(t) and Φ depend on t. A torsional spring k and a damper c act
on θ (c through the forces key). Nothing is conserved. Outputs x and θ; the rows leave θ's
equation alone (J has no θ column), so the reference is the one-coordinate ODE
I θ̈ = −k θ − c θ̇ with x = a sin(Ω t) as a time-dependent output. Not in the catalog: generated
into tests/derive/generated/ for tests/derive/test_generated_features.cpp, which checks the
generator's time terms (ν = (−Φ_t; c), γ with −Φ_tt and c_t) against finite differences.
"""
import sympy as sm

x, y, th, th_r = sm.symbols("x y theta theta_r")
vx, vy, w, w_r = sm.symbols("v_x v_y omega omega_r")
t = sm.symbols("t")
m, inertia, a, rate, slip, k, c, theta0 = sm.symbols("m I a Omega s k c theta0")

MODEL = dict(
    id="driven_knife_edge",
    title="Knife-edge body dragged along a prescribed path (test only)",
    display_name="Driven knife edge",
    units=dict(outputs={"x": "m", "theta": "rad"}, holonomic=["m"], nonholonomic=["m/s"]),
    summary="test-only rheonomic and nonholonomic model of the generator's tests",
    source="defined for the tests of cmbench.derive",
    t_end=5.0,
    time=t,
    coordinates=[x, y, th],
    speeds=[vx, vy, w],
    kinetic=m * (vx**2 + vy**2) / 2 + inertia * w**2 / 2,
    potential=k * th**2 / 2,
    forces=[0, 0, -c * w],
    holonomic=[x - a * sm.sin(rate * t)],
    nonholonomic=[-sm.sin(th) * vx + sm.cos(th) * vy - slip * sm.cos(rate * t)],
    parameters={m: (1.0, "mass [kg]", "> 0"), inertia: (0.1, "inertia about C [kg m^2]", "> 0"),
                a: (0.5, "amplitude of the drive [m]"), rate: (2.0, "frequency of the drive [rad/s]"),
                slip: (0.2, "sideways slip amplitude [m/s]"), k: (3.0, "spring on theta [N m/rad]"),
                c: (0.05, "damper on theta [N m s/rad]", ">= 0"),
                theta0: (0.3, "initial heading [rad]")},
    initial={x: 0, y: 0, th: theta0, vx: a * rate, vy: (slip + sm.sin(theta0) * a * rate) / sm.cos(theta0),
             w: 0},
    outputs={"x": x, "theta": th},
    reference=dict(coordinates=[th_r], speeds=[w_r], kinetic=inertia * w_r**2 / 2,
                   potential=k * th_r**2 / 2, forces=[-c * w_r], initial={th_r: theta0, w_r: 0},
                   outputs={"x": a * sm.sin(rate * t), "theta": th_r},
                   provenance="the heading's own ODE I theta'' = -k theta - c theta', which the "
                              "rows do not touch, Bulirsch-Stoer at tolerance 1e-13",
                   accuracy=1e-10),
)
