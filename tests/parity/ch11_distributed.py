# Chapter 11 parity: DistributedSampler's index lists against torch.utils.data.distributed's, for
# every rank of several world sizes, with and without shuffle and drop_last, several values of
# `seed` and epochs; and the permutation torch.randperm draws after manual_seed (which the
# shuffled sampler is built on). The C++ twin of each case is in ch11_distributed.cpp.
from torch.utils.data.distributed import DistributedSampler


def sampler_case(n, R, r, shuffle, drop_last, s, epoch):
    def run():
        sampler = DistributedSampler(range(n), num_replicas=R, rank=r, shuffle=shuffle, seed=s,
                                     drop_last=drop_last)
        sampler.set_epoch(epoch)
        return torch.tensor(list(sampler), dtype=torch.int64)
    name = f"sampler/n{n}-R{R}-r{r}-shuffle{int(shuffle)}-drop{int(drop_last)}-s{s}-e{epoch}"
    case(name, run)


for n in (1, 7, 10, 1003):
    for R in (2, 3, 4):
        for r in range(R):
            for drop_last in (False, True):
                sampler_case(n, R, r, False, drop_last, 0, 0)
                for s, epoch in ((0, 0), (42, 3)):
                    sampler_case(n, R, r, True, drop_last, s, epoch)

# Bad arguments: PyTorch raises, Kindling throws.
case("sampler/rank-out-of-range", lambda: torch.tensor(list(DistributedSampler(range(5), num_replicas=2, rank=2))),
     expect_error=True)
case("sampler/negative-rank", lambda: torch.tensor(list(DistributedSampler(range(5), num_replicas=2, rank=-1))),
     expect_error=True)


def randperm_case(n, s):
    def run():
        g = torch.Generator()
        g.manual_seed(s)
        return torch.randperm(n, generator=g)
    case(f"randperm/n{n}-s{s}", run)


for n, s in ((0, 0), (1, 5), (10, 0), (1000, 123), (100000, 7), (20, 2**32 + 5)):
    randperm_case(n, s)

# DistributedDataParallel's bucket rule: torch.distributed._compute_bucket_assignment_by_size on
# tensors of the given element counts and dtypes, the buckets written one after the other with -1
# after each.
def buckets_case(name, sizes, limits):
    def run():
        tensors = [torch.empty(n, dtype=getattr(torch, d)) for n, d in sizes]
        buckets, _ = torch.distributed._compute_bucket_assignment_by_size(tensors, limits)
        return torch.tensor([i for b in buckets for i in b + [-1]], dtype=torch.int64)
    case(f"buckets/{name}", run)


BUCKET_CASES = {
    "1MB-then-25MB": ([(157286, "float32"), (157286, "float32"), (2621440, "float32"), (5242880, "float32"),
                       (256, "float32")], [1 << 20, 25 << 20]),
    "dtypes-apart": ([(4, "float32"), (4, "float64"), (4, "float32"), (300000, "float64"), (9, "float64")],
                     [1 << 20]),
    "small-limits": ([(n, "float32") for n in (3, 40, 7, 100, 1, 1, 64, 20)], [16, 200, 100]),
    "exact-limit": ([(256, "float32"), (256, "float32"), (512, "float32")], [1024, 2048]),
}
for name, (sizes, limits) in BUCKET_CASES.items():
    buckets_case(name, sizes, limits)
