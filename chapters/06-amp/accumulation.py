# PyTorch's twin of accumulation.cpp: the accumulation loop, and what forgetting
# the division does (the numbers differ from Kindling's: other random weights and
# batches).
import torch
import torch.nn as nn

torch.manual_seed(0)
micro = [(torch.randn(16, 784), torch.randint(0, 10, (16,))) for _ in range(20)]


def make_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024),
                         nn.ReLU(), nn.Linear(1024, 10))


def train(model, optimizer, loader, accumulation_steps, divide):
    criterion = nn.CrossEntropyLoss()
    # [snippet: loop]
    optimizer.zero_grad()
    for i, (inputs, labels) in enumerate(loader):
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        if divide:
            loss = loss / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    # [end]


def flat(model):
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def run(lr, divide):
    model = make_model()
    train(model, torch.optim.SGD(model.parameters(), lr=lr), micro, 4, divide)
    return flat(model)


w0 = flat(make_model())
sgd, sgd_no_div, sgd_lr4 = run(0.01, True), run(0.01, False), run(0.04, True)


def relative(a, b):  # how far b ends from a, relative to how far a moved
    return float((b - a).abs().sum() / (a - w0).abs().sum())


print("difference / distance moved:")
print(f"  SGD lr 0.01, without / 4 vs with / 4:        {relative(sgd, sgd_no_div):.4f}")
print("  SGD lr 0.01 without / 4 vs lr 0.04 with / 4: "
      f"{relative(sgd_lr4, sgd_no_div):.4f}")
