"""Chapter 12's reference answers in plain Python and PyTorch, shared by the graded tests' twin
(pytorch.py) and the milestone's checker (milestone.py): the causal mask as PyTorch's tril, byte-pair
encoding by minbpe's rules (the most frequent pair, ties to the smallest, merged left to right), and the
sampling probabilities from torch.sort, softmax and cumsum."""
import torch


def causal(L, S, offset):
    """True where key j <= offset + i: tril with the diagonal moved by offset."""
    return torch.ones(L, S, dtype=torch.bool).tril(offset)


def most_frequent_pair(ids):
    counts = {}
    for p in zip(ids, ids[1:]):
        counts[p] = counts.get(p, 0) + 1
    if not counts:
        return (-1, -1, 0)
    best = min(counts, key=lambda p: (-counts[p], p))  # the largest count, then the smallest pair
    return (best[0], best[1], counts[best])


def merge_pair(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def bpe_train(text, vocab_size):
    ids, merges = list(text.encode("utf-8")), []
    while 256 + len(merges) < vocab_size:
        a, b, n = most_frequent_pair(ids)
        if n < 2:
            break
        ids = merge_pair(ids, (a, b), 256 + len(merges))
        merges.append((a, b))
    return merges


def bpe_encode(text, merges):
    ids, rank = list(text.encode("utf-8")), {m: i for i, m in enumerate(merges)}
    while len(ids) >= 2:
        present = [rank[p] for p in zip(ids, ids[1:]) if p in rank]
        if not present:
            break
        r = min(present)
        ids = merge_pair(ids, merges[r], 256 + r)
    return ids


def next_token_probs(logits, temperature, top_k, top_p):
    x = logits.double() / temperature
    V = x.numel()
    sorted_x, order = torch.sort(x, descending=True, stable=True)
    keep = V if top_k <= 0 else min(top_k, V)
    p = sorted_x[:keep].softmax(0)
    if top_p < 1.0:
        cum = p.cumsum(0)
        n = int((cum < top_p).sum().item()) + 1  # the first position where the mass reaches top_p
        keep = max(min(n, keep), 1)
        p = p[:keep] / p[:keep].sum()
    out = torch.zeros(V, dtype=torch.float64)
    out[order[:keep]] = p[:keep]
    return out
