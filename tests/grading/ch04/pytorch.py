# Chapter 4's graded tests, PyTorch's side (see tests/grading/twins.py).
import numpy as np


def stack(ts):
    return torch.stack(list(ts), 0)


# ---- ex1: the permutation --------------------------------------------------------------------------------
_SIZES = [0, 1, 2, 10, vary(200, 2000)]  # one size drawn for this run


@case("random_permutation: a permutation of 0..n-1", sizes=value(_SIZES, dtype="int64"))
def _(sizes):
    # judged outside the test process from the draws it reports (grade_compare.judge_permutations)
    return {f"random_permutation({n}) is a permutation of 0..{n - 1}":
            judge_permutations(f"random_permutation({n})", n) for n in sizes.tolist()} | {
        "random_permutation(10), 5 draws: permutations, not all in order":
            judge_permutations("random_permutation(10), 5 draws", 10, rows=5, not_sorted=True)}


@case("random_permutation: the same seed gives the same order, another seed another",
      n=value(vary(30, 80), dtype="int64"))
def _(n):
    # judged outside the test process from the orders it reports (grade_compare.judge_permutations)
    n = int(n)
    return {"seed 7 twice: equal, seed 8 and a second draw: different": judge_permutations(
                "seed 7", n, same_as=["seed 7 again"], differs_from=["seed 8", "seed 7, second draw"]),
            "seed 8 is a permutation": judge_permutations("seed 8", n),
            "the second draw is a permutation": judge_permutations("seed 7, second draw", n)}


@case("random_permutation: every order is equally likely", n=value(4, dtype="int64"))
def _(n):
    # 4! = 24 orders over 12000 draws: each about 500 times; a chi-square with 23 degrees of freedom stays
    # below 60 except with probability ~4e-5 (a wrong shuffle, e.g. j in [0, n), lands far above).
    # Judged outside the test process from the 12000 draws it reports (grade_compare.judge_permutations).
    return {"every order of 4 items equally likely": judge_permutations(
        "12000 draws of random_permutation(n)", int(n), rows=12000, uniform=(60.0, 300))}


@case("random_permutation: negative sizes are refused", n=value(3, dtype="int64"))
def _(n):
    return {"random_permutation(-1)": raises("ValueError"), "RandomSampler over 12 samples: sorted": list(range(12))}


# ---- ex2: collate ------------------------------------------------------------------------------------------
@case("collate: samples into a batch", **{f"x{k}": randn(3, 4) for k in range(5)})
def _(**kw):
    xs = [kw[f"x{k}"] for k in range(5)]
    return {"collate_tensors(x0..x4)": stack(xs), "collate_tensors(x0)": stack(xs[:1])}


@case("collate: views, 0-d samples and every dtype", a=randn(4, 3), b=randn(4, 3), i=randint(0, 9, 6, dtype="int64"),
      u=randint(0, 256, 2, 5, dtype="uint8"), m=randint(0, 2, 3, 2, dtype="bool"), d=randn(2, 3, dtype="float64"))
def _(a, b, i, u, m, d):
    return {"collate_tensors({a.t(), b.t()})": stack([a.t(), b.t()]),
            "collate_tensors({a[:, ::2], b[:, ::2]})": stack([a[:, ::2], b[:, ::2]]),
            "0-d labels i[0..5]": stack([i[k] for k in range(6)]), "uint8 rows of u": stack([u[0], u[1]]),
            "bool rows of m": stack([m[k] for k in range(3)]), "float64 rows of d": stack([d[0], d[1]])}


@case("collate: samples that differ are refused", a=randn(3, 4), b=randn(4, 3), c=randn(3, 4, dtype="float64"))
def _(a, b, c):
    return {"{a, b} (shapes differ)": raises("ShapeError", contains=["sample 1"]),
            "{a, c} (dtypes differ)": raises("ShapeError", contains=["sample 1"]),
            "{} (no samples)": raises("ValueError")}


@case("collate: a DataLoader's batches", x=randn(10, 2, 3), y=randint(0, 5, 10, dtype="int64"))
def _(x, y):
    out = {}
    for k, s in enumerate(range(0, 10, 4)):
        out[f"batch {k}: data"] = x[s:s + 4]
        out[f"batch {k}: targets"] = y[s:s + 4]
    return out


# ---- ex3: transforms ----------------------------------------------------------------------------------------
def to_tensor(img):
    chw = img.unsqueeze(0) if img.dim() == 2 else img.permute(2, 0, 1)
    chw = chw.contiguous()
    return chw.float().div(255) if chw.dtype == torch.uint8 else chw


@case("to_tensor: HWC uint8 images become CHW float32 in [0, 1]", rgb=randint(0, 256, 5, 7, 3, dtype="uint8"),
      gray=randint(0, 256, 28, 28, dtype="uint8"), one=randint(0, 256, 4, 6, 1, dtype="uint8"))
def _(rgb, gray, one):
    return {"to_tensor(rgb [5, 7, 3])": to_tensor(rgb), "to_tensor(gray [28, 28])": to_tensor(gray),
            "to_tensor(one [4, 6, 1])": to_tensor(one)}


@case("to_tensor: float images are only moved to CHW", f=rand(5, 4, 3), g=rand(3, 2, dtype="float64"))
def _(f, g):
    return {"to_tensor(f [5, 4, 3] float32)": to_tensor(f), "to_tensor(g [3, 2] float64)": to_tensor(g),
            "to_tensor of a [2, 3, 4, 5] tensor": raises("ShapeError")}


def normalize(x, mean, std):
    m = torch.as_tensor(mean, dtype=x.dtype).view(-1, 1, 1)
    s = torch.as_tensor(std, dtype=x.dtype).view(-1, 1, 1)
    return x.clone().sub_(m).div_(s)


@case("normalize: per-channel mean and std", img=rand(3, 5, 6), batch=rand(2, 3, 4, 4), gray=rand(1, 8, 8, dtype="float64"))
def _(img, batch, gray):
    return {"normalize(img, {0.5, 0.4, 0.3}, {0.2, 0.25, 0.3})": normalize(img, [0.5, 0.4, 0.3], [0.2, 0.25, 0.3]),
            "normalize(batch, {0.5, 0.4, 0.3}, {0.2, 0.25, 0.3})": normalize(batch, [0.5, 0.4, 0.3], [0.2, 0.25, 0.3]),
            "normalize(img, {0.5}, {0.25})": normalize(img, [0.5], [0.25]),
            "normalize(gray, {0.2860}, {0.3530})": normalize(gray, [0.2860], [0.3530])}


@case("normalize: what it refuses", img=rand(3, 5, 6), u=randint(0, 256, 3, 4, 4, dtype="uint8"), flat=rand(5, 6))
def _(img, u, flat):
    return {"uint8 image": raises("DTypeError"), "2 means for 3 channels": raises("ValueError"),
            "std 0": raises("ValueError"), "a [5, 6] tensor": raises("ShapeError")}


@case("hflip: images, batches and every dtype", img=rand(3, 4, 5), batch=randint(0, 256, 2, 1, 3, 3, dtype="uint8"),
      d=rand(2, 6, dtype="float64"))
def _(img, batch, d):
    return {"hflip(img)": torch.flip(img, [-1]), "hflip(batch)": torch.flip(batch, [-1]), "hflip(d)": torch.flip(d, [-1]),
            "hflip(img.permute(0, 2, 1))": torch.flip(img.permute(0, 2, 1), [-1])}


@case("RandomHorizontalFlip and Normalize in a pipeline", img=randint(0, 256, 6, 5, 1, dtype="uint8"))
def _(img):
    t = to_tensor(img)
    return {"ToTensor, flip p=1, Normalize": normalize(torch.flip(t, [-1]), [0.5], [0.5]),
            "ToTensor, flip p=0, Normalize": normalize(t, [0.5], [0.5])}


# ---- ex4: the prefetcher ------------------------------------------------------------------------------------
# The item count, the items' values and the failing item are drawn for each grading run: what the
# prefetcher hands out can only come from calling the test's loads, in order.
_N1, _C1 = vary(150, 260), vary(1, 1 << 20)
_N2, _N3, _BAD = vary(40, 80), vary(15, 40), vary(3, 12)


@case("prefetcher: every item once, in order, however the threads race",
      n=value(_N1, dtype="int64"), c=value(_C1, dtype="int64"))
def _(n, c):
    items = [k * k + _C1 for k in range(_N1)]
    return {"items with 4 workers, window 8": items,
            "items with 1 worker, window 1": items,
            "items with 7 workers, window 3": items,
            "loads per item": [1] * _N1}


@case("prefetcher: never more than the window ahead", n=value(_N2, dtype="int64"))
def _(n):
    return {"items": list(range(_N2)), "the loads stayed within the window": True, "the threads loaded ahead": True}


@case("prefetcher: an error reaches the consumer at its item", n=value(_N3, dtype="int64"),
      bad=value(_BAD, dtype="int64"))
def _(n, bad):
    return {"items before the error": list(range(_BAD)),
            f"next() at item {_BAD}": raises("ValueError", contains=[f"item {_BAD} is bad"])}


@case("prefetcher: destroyed early, it stops and joins its threads", n=value(1000, dtype="int64"))
def _(n):
    return {"items taken": [0, 1, 2], "loads stayed bounded (<= 3 + window + workers)": True}


@case("DataLoader: with workers, the batches of the dataset in order", x=randn(50, 3), y=randint(0, 4, 50, dtype="int64"))
def _(x, y):
    out = {}
    for k, s in enumerate(range(0, 50, 8)):
        out[f"batch {k}: data"] = x[s:s + 8]
        out[f"batch {k}: targets"] = y[s:s + 8]
    return out
