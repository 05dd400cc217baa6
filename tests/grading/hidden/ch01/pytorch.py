# Instructor-only twins for chapter 1 (not in a handout): random views, so that an answer tuned to the
# visible tests' layouts does not pass by luck. Helpers come from the visible twins, exec'd first.
import os

exec(open(os.path.join(os.path.dirname(__file__), "..", "..", "ch01", "pytorch.py")).read().split("# ---- ex1")[0])

RANDOM_H = random_programs(120, 101)


@case("is_contiguous and strides of 120 random views (hidden)", **layout_inputs(RANDOM_H))
def _(layouts, **kw):
    out = {}
    for name, v in views(kw, RANDOM_H):
        out[f"is_contiguous: {name}"] = v.is_contiguous()
        out[f"strides: {name}"] = list(v.stride())
    return out


RANDOM_B = random_programs(80, 103)


@case("contiguous of 80 random bool and uint8 views (hidden)", **{f"{dt}_{k}": v for dt in ("bool", "uint8")
                                                                  for k, v in layout_inputs(RANDOM_B, dt).items()})
def _(**kw):
    out = {}
    for dt in ("bool", "uint8"):
        sub = {k[len(dt) + 1:]: v for k, v in kw.items() if k.startswith(dt + "_")}
        for name, v in views(sub, RANDOM_B):
            out[f"{dt} contiguous(): {name}"] = v.contiguous()
    return out


@case("sum along every dim of 40 random views (hidden)", **layout_inputs(random_programs(40, 105), "float64"))
def _(layouts, **kw):
    out = {}
    for name, v in views(kw, random_programs(40, 105)):
        for d in range(v.dim()):
            out[f"sum({d}): {name}"] = v.sum(d)
    return out
