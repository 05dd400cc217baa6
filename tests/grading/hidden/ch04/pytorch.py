# Instructor-only twins for chapter 4 (not in a handout).
@case("prefetcher: 30 runs with random workers and windows (hidden)", n=value(97, dtype="int64"))
def _(n):
    return {f"run {r}": [k + r for k in range(97)] for r in range(30)}


@case("collate: 40 random batches of views (hidden)", x=randn(40, 6, 5, dtype="float64"))
def _(x):
    return {f"batch {b}": torch.stack([x[b].t(), x[(b + 1) % 40].t(), x[(b + 7) % 40].t()]) for b in range(40)}
