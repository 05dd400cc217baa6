#!/usr/bin/python3
"""PyTorch's DistributedDataParallel over its gloo backend as the oracle of Kindling's.

Both train the same network (Linear-BatchNorm1d-ReLU-Linear-ReLU-Linear, CrossEntropyLoss, SGD
with momentum) for a few steps on 2 processes, each on its half of every batch, from the same
weights and with the same small buckets (so that the gradients travel in several all-reduces).
Rank 1 starts from other weights, which DDP's broadcast from rank 0 replaces; BatchNorm's
running statistics are broadcast from rank 0 before each forward (broadcast_buffers). Checked:
  - every rank's loss at every step;
  - every rank's parameters and buffers (running statistics, num_batches_tracked) after the last
    step;
  - the bucket assignment: Kindling's buckets hold the parameters of PyTorch's, in the same order,
    as its reducer rebuilds them after the first iteration (parameters in the order their
    gradients became ready, a small first bucket), the assignment it keeps for the rest of
    training.
PyTorch 1.13's MPI backend is not built in Debian's package; gloo is, and runs here over the
loopback interface. Run by CTest (tests/distributed/mpi/CMakeLists.txt) with the mpirun command
and the Kindling program."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

WORLD = 2
STEPS = 6
BATCH_PER_RANK = 8
LR, MOMENTUM = 0.1, 0.9
# Bucket sizes in bytes: fc2.weight alone (8 KiB) fills a bucket; the first bucket (the output
# layer's gradients, ready first) closes after 1000 bytes.
FIRST_BUCKET_BYTES, BUCKET_CAP_BYTES = 1000, 6000
RTOL, ATOL = 1e-5, 1e-6  # float32: gloo and MPI add the two ranks' gradients in the same order,
#                          but Kindling's and PyTorch's kernels round differently


def net():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(20, 64)
            self.bn = torch.nn.BatchNorm1d(64)
            self.relu = torch.nn.ReLU()
            self.fc2 = torch.nn.Linear(64, 32)
            self.fc3 = torch.nn.Linear(32, 5)

        def forward(self, x):
            return self.fc3(self.relu(self.fc2(self.relu(self.bn(self.fc1(x))))))

    return Net()


def torch_rank(rank, work):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + os.path.join(work, "gloo.store"), rank=rank,
                            world_size=WORLD)
    model = net()
    if rank == 0:  # rank 1 keeps its own random start: the broadcast must replace it
        model.load_state_dict({k: torch.from_numpy(np.load(os.path.join(work, f"init.{k}.npy")))
                               for k in model.state_dict()})
    dist._DEFAULT_FIRST_BUCKET_BYTES = FIRST_BUCKET_BYTES  # read when DDP builds its reducer
    ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=BUCKET_CAP_BYTES / (1 << 20))
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    criterion = torch.nn.CrossEntropyLoss()
    x = torch.from_numpy(np.load(os.path.join(work, "x.npy")))
    y = torch.from_numpy(np.load(os.path.join(work, "y.npy")))
    losses = []
    for step in range(STEPS):
        shard = slice(rank * BATCH_PER_RANK, (rank + 1) * BATCH_PER_RANK)
        opt.zero_grad()
        loss = criterion(ddp(x[step, shard]), y[step, shard])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    np.save(os.path.join(work, f"torch.loss.{rank}.npy"), np.array(losses))
    for k, v in model.state_dict().items():
        np.save(os.path.join(work, f"torch.{rank}.{k}.npy"), v.numpy())
    if rank == 0:
        logging = ddp._get_ddp_logging_data()
        with open(os.path.join(work, "torch.buckets.txt"), "w") as f:
            f.write(logging["rebuilt_per_bucket_param_indices"] + "\n")
    dist.barrier()
    dist.destroy_process_group()


def run_torch(work):
    import torch.multiprocessing as mp
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    mp.spawn(torch_rank, args=(work,), nprocs=WORLD, join=True)


def torch_buckets(text):
    """The reducer's rebuilt buckets as PyTorch 1.13's logger prints them: each bucket's parameter
    indices separated by spaces, buckets separated by ', '."""
    return [[int(i) for i in bucket.split()] for bucket in text.strip().split(",") if bucket.strip()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpiexec", required=True, help="mpirun")
    parser.add_argument("--np-flag", default="-np", help="mpirun's flag for the number of processes")
    parser.add_argument("--program", required=True, help="the mpi_ddp_oracle program")
    args = parser.parse_args()
    rng = np.random.default_rng(20261205)
    with tempfile.TemporaryDirectory(prefix="kindling-ddp-oracle-") as work:
        import torch
        torch.manual_seed(0)
        for k, v in net().state_dict().items():
            np.save(os.path.join(work, f"init.{k}.npy"), v.numpy())
        np.save(os.path.join(work, "x.npy"), rng.standard_normal((STEPS, WORLD * BATCH_PER_RANK, 20)).astype(np.float32))
        np.save(os.path.join(work, "y.npy"), rng.integers(0, 5, (STEPS, WORLD * BATCH_PER_RANK)).astype(np.int64))
        with open(os.path.join(work, "config.txt"), "w") as f:
            f.write(f"{LR} {MOMENTUM} {FIRST_BUCKET_BYTES} {BUCKET_CAP_BYTES}\n")
        run_torch(work)
        cmd = [args.mpiexec, args.np_flag, str(WORLD), args.program, work]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        if done.returncode != 0:
            sys.exit(f"FAIL: {' '.join(cmd)} exited with status {done.returncode}")
        failures = []
        for rank in range(WORLD):
            want = np.load(os.path.join(work, f"torch.loss.{rank}.npy"))
            got = np.load(os.path.join(work, f"kindling.loss.{rank}.npy"))
            if got.shape != want.shape or not np.allclose(got, want, rtol=RTOL, atol=ATOL):
                failures.append(f"rank {rank}'s losses {np.array2string(got, precision=6)} are not PyTorch DDP's "
                                f"{np.array2string(want, precision=6)}")
        worst = 0.0
        # Every rank's state: the parameters are the same on both, the running statistics are not
        # (each rank's last forward updated rank 0's broadcast statistics with its own shard).
        for rank in range(WORLD):
            for k in net().state_dict():
                want = np.load(os.path.join(work, f"torch.{rank}.{k}.npy"))
                got = np.load(os.path.join(work, f"kindling.{rank}.{k}.npy"))
                if got.shape != want.shape:
                    failures.append(f"rank {rank}'s {k}: shape {got.shape}, PyTorch's {want.shape}")
                    continue
                diff = float(np.abs(got.astype(np.float64) - want).max()) if want.size else 0.0
                worst = max(worst, diff)
                if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
                    failures.append(f"rank {rank}'s {k} after {STEPS} steps differs from PyTorch DDP's by up to "
                                    f"{diff:.3g}")
        with open(os.path.join(work, "torch.buckets.txt")) as f:
            want_buckets = torch_buckets(f.read())
        with open(os.path.join(work, "kindling.buckets.txt")) as f:
            got_buckets = [[int(i) for i in line.split()] for line in f if line.strip()]
        # Which parameters share a bucket, and the order the buckets' all-reduces start in, are compared;
        # inside a bucket PyTorch lays the gradients out in the order they became ready in the first
        # iteration (bn.weight's before bn.bias's), Kindling in reverse order of registration.
        if [sorted(b) for b in got_buckets] != [sorted(b) for b in want_buckets]:
            failures.append(f"buckets {got_buckets}, PyTorch's reducer (rebuilt after the first iteration) has "
                            f"{want_buckets}")
        print(f"ddp oracle: {WORLD} ranks, {STEPS} steps, buckets {got_buckets}; largest difference from PyTorch "
              f"DDP (gloo) {worst:.3g}")
        if failures:
            sys.exit("FAIL:\n  " + "\n  ".join(failures))
        print("ddp oracle: Kindling's DistributedDataParallel matches PyTorch's (gloo)")


if __name__ == "__main__":
    main()
