"""Code generation shared by the symbolic derivation scripts (derive_*.py): sympy expressions
become inline C++ functions writing into an output array, with common subexpressions hoisted."""
import os
import re
import sys

import sympy as sm


def emit(name, args, exprs, shape, data):
    """A C++ function writing exprs (a sympy Matrix) into out[] in row-major order."""
    flat = [e.subs(data) for e in exprs]
    replacements, reduced = sm.cse(flat, symbols=sm.numbered_symbols("t"))
    lines = [f"// {shape}", f"inline void {name}({', '.join(f'const double* {a}' for a in args)}, double* out) {{"]
    for sym, expr in replacements:
        lines.append(f"  const double {sym} = {sm.cxxcode(expr, standard='c++17')};")
    for i, expr in enumerate(reduced):
        lines.append(f"  out[{i}] = {sm.cxxcode(expr, standard='c++17')};")
    lines.append("}")
    return "\n".join(lines)


def index_arrays(text, arrays):
    """Symbol names like kq0 or p3 become the argument array elements kq[0], p[3]."""
    for prefix, count in arrays:
        for i in range(count):
            text = re.sub(rf"\b{prefix}{i}\b", f"{prefix}[{i}]", text)
    return text


def write_or_check(path, text, check, script):
    """Writes the generated file, or with check=True exits 1 when the committed one differs."""
    if check:
        with open(path) as f:
            if f.read() != text:
                sys.exit(f"{os.path.relpath(path)} is not current: run /usr/bin/python3 {script}")
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
