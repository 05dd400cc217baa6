"""PyTorch's DistributedSampler on the same ten samples and four ranks. It needs no
process group either when num_replicas and rank are given."""
from torch.utils.data.distributed import DistributedSampler

# [snippet: shards]
n = 10  # a dataset of 10 samples (anything with a len()), read by 4 ranks
for r in range(4):
    s = DistributedSampler(range(n), num_replicas=4, rank=r, shuffle=False)
    print(f"rank {r}: {list(s)}")
# [end]
print()

# [snippet: epochs]
for epoch in range(2):
    seen = []
    for r in range(4):
        s = DistributedSampler(range(n), num_replicas=4, rank=r, seed=0)
        s.set_epoch(epoch)  # the order of this epoch: the same on every rank
        mine = list(s)
        seen += mine
        print(f"epoch {epoch}, rank {r}: {mine}")
    print(f"epoch {epoch}, all ranks: {sorted(seen)}")
# [end]
print()

for r in range(4):
    s = DistributedSampler(range(n), num_replicas=4, rank=r, shuffle=False,
                           drop_last=True)
    print(f"drop_last, rank {r}: {list(s)}")
