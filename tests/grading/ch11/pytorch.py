# Chapter 11's graded tests, PyTorch's side (see tests/grading/twins.py): DistributedSampler's shards and
# DDP's bucket assignment from PyTorch itself (torch.utils.data.distributed.DistributedSampler and
# torch.distributed._compute_bucket_assignment_by_size, the function DDP's reducer calls; neither needs
# a process group when the ranks are given); the bucket bookkeeping of a backward and the ring's sums and
# traffic computed here in plain Python. Sizes, orders and values vary per grading run.
import torch
import torch.distributed as dist
from torch.utils.data.distributed import DistributedSampler


def ints(v):
    return value(v, dtype="int64")


# ---- ex1: DistributedSampler ------------------------------------------------------------------------------
def shards(n, ranks, seed, epoch, shuffle, drop_last, prefix=""):
    out = {}
    for r in range(ranks):
        s = DistributedSampler(range(n), num_replicas=ranks, rank=r, shuffle=shuffle, seed=seed, drop_last=drop_last)
        s.set_epoch(epoch)
        out[f"{prefix}rank {r}"] = list(s)
        out[f"{prefix}len, rank {r}"] = len(s)
    return out


def sampler_case(name, n, ranks, configs):
    seed, epoch = vary(0, 1 << 30), vary(0, 50)

    @case(name, n=ints(n), ranks=ints(ranks), seed=ints(seed), epoch=ints(epoch))
    def _(**t):
        out = {}
        for shuffle, drop_last, prefix in configs:
            out.update(shards(n, ranks, seed, epoch, shuffle, drop_last, prefix))
        return out


ranks = vary(2, 6)
sampler_case("DistributedSampler: shuffled shards of every rank, padded",
             ranks * vary(5, 30) + vary(1, ranks), ranks, [(True, False, "")])
ranks = vary(3, 7)
sampler_case("DistributedSampler: drop_last cuts the tail instead",
             ranks * vary(5, 30) + vary(1, ranks), ranks, [(True, True, ""), (False, True, "in order, ")])
ranks = vary(4, 8)
sampler_case("DistributedSampler: a dataset smaller than the number of ranks",
             vary(1, ranks), ranks, [(True, False, ""), (False, True, "drop_last, ")])


# ---- ex2: bucket assignment -------------------------------------------------------------------------------
DTYPES = [torch.float32, torch.float64, torch.bfloat16]


def bucket_case(name, numels, dtypes, limits):
    @case(name, numels=ints(numels), dtypes=ints(dtypes), limits=ints(limits))
    def _(**t):
        tensors = [torch.zeros(n, dtype=DTYPES[d]) for n, d in zip(numels, dtypes)]
        buckets, _limits = dist._compute_bucket_assignment_by_size(tensors, list(limits))
        out = {"number of buckets": len(buckets)}
        out.update({f"bucket {k}": list(b) for k, b in enumerate(buckets)})
        return out


k = vary(12, 30)
bucket_case("bucket assignment: one dtype, a smaller first bucket",
            [int(run_rng.integers(1, 400)) for _ in range(k)], [0] * k, [vary(300, 900), vary(1500, 4000)])
k = vary(15, 30)
bucket_case("bucket assignment: mixed dtypes, each dtype its own buckets",
            [int(run_rng.integers(1, 300)) for _ in range(k)], [int(run_rng.integers(0, 3)) for _ in range(k)],
            [vary(200, 600), vary(1000, 3000)])
k = vary(15, 30)
bucket_case("bucket assignment: three limits, and tensors larger than a limit",
            [int(run_rng.integers(1, 300)) if run_rng.random() < 0.8 else int(run_rng.integers(800, 2000))
             for _ in range(k)], [int(run_rng.integers(0, 2)) for _ in range(k)],
            [vary(100, 400), vary(500, 1500), vary(2000, 5000)])


# ---- ex3: mark_gradient_ready -----------------------------------------------------------------------------
def backward_case(name, order):
    """Parameters of [rows, cols] each, grouped into consecutive buckets; their gradients arrive in
    `order` ("reverse": backward's order, the last parameter first; "shuffled": any order)."""
    p = vary(6, 14)
    shapes = [(vary(1, 5), vary(1, 6)) for _ in range(p)]
    # Buckets over the parameters in reverse order (as DDP makes them): bucket 0 holds the last ones.
    cuts = sorted(set(int(c) for c in run_rng.integers(1, p, size=vary(2, 5))))
    rev = list(range(p - 1, -1, -1))
    groups = [rev[a:b] for a, b in zip([0] + cuts, cuts + [p])]
    bucket_of, offset, bucket_numel = [0] * p, [0] * p, []
    for b, members in enumerate(groups):
        total = 0
        for q in members:
            bucket_of[q], offset[q] = b, total
            total += shapes[q][0] * shapes[q][1]
        bucket_numel.append(total)
    ready = rev if order == "reverse" else [int(x) for x in run_rng.permutation(p)]
    grads = {f"g{q}": randn(*shapes[q]) for q in range(p)}

    @case(name, bucket_of=ints(bucket_of), offset=ints(offset), bucket_numel=ints(bucket_numel),
          ready=ints(ready), **grads)
    def _(**t):
        pending = [len(g) for g in groups]
        buffers = [torch.zeros(n) for n in bucket_numel]
        nxt, out = 0, {}
        for k, q in enumerate(ready):
            g = t[f"g{q}"]
            g = g.t() if name.endswith("layout land at their offsets") else g
            b = bucket_of[q]
            buffers[b][offset[q]:offset[q] + g.numel()] = g.reshape(-1)
            pending[b] -= 1
            started = []
            while nxt < len(pending) and pending[nxt] == 0:
                started.append(nxt)
                nxt += 1
            out[f"started after gradient {k}"] = started
            out[f"next_bucket after gradient {k}"] = nxt
        out.update({f"bucket {b}": buf for b, buf in enumerate(buffers)})
        return out


backward_case("mark_gradient_ready: gradients in backward's order, buckets start one by one", "reverse")
backward_case("mark_gradient_ready: a bucket complete out of order waits for the ones before it", "shuffled")
backward_case("mark_gradient_ready: gradients of any shape and layout land at their offsets", "shuffled")


# ---- ex4: the ring all-reduce -----------------------------------------------------------------------------
def ring_case(name, ranks, n, dtype):
    xs = {f"x{r}": (randint(-1000, 1000, n) if dtype == "int64" else randn(n, dtype=dtype)) for r in range(ranks)}

    @case(name, ranks=ints(ranks), **xs)
    def _(**t):
        total = sum(t[f"x{r}"] for r in range(ranks))
        if dtype == "float32":
            total = approx(total, rtol=1e-5, atol=1e-5)  # the ring adds in another order than sum()
        size = [(c + 1) * n // ranks - c * n // ranks for c in range(ranks)]
        # Reduce-scatter sends every chunk but (r + 1), all-gather every chunk but (r + 2), mod N.
        sent = [2 * n - size[(r + 1) % ranks] - size[(r + 2) % ranks] for r in range(ranks)]
        out = {f"sum on rank {r}": total for r in range(ranks)}
        out["elements sent per rank"] = sent
        out["send_recv calls per rank"] = [2 * (ranks - 1)] * ranks
        return out


ring_case("ring all-reduce: 2 ranks, float64", 2, vary(5, 60), "float64")
r = vary(3, 7)
ring_case("ring all-reduce: 3 to 6 ranks, float32 of an odd size", r, 2 * vary(r, 80) + 1, "float32")
r = vary(4, 8)
ring_case("ring all-reduce: fewer elements than ranks", r, vary(1, r), "float64")
r = vary(2, 6)
ring_case("ring all-reduce: int64 sums are exact, elements sent counted", r, vary(20, 200), "int64")
