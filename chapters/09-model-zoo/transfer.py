# The same moves in PyTorch: a new head, a frozen backbone, BatchNorm in eval() while
# the head trains, and parameter groups with their own learning rates.
import torch
import torchvision
from torchvision.models.feature_extraction import create_feature_extractor

torch.manual_seed(0)
# [snippet: new-head]
model = torchvision.models.resnet18(weights=None, num_classes=1000)
print("before:", model.fc)
model.fc = torch.nn.Linear(512, 5)
print("after: ", model.fc)
# [end]

# [snippet: freeze]
model.requires_grad_(False)
model.fc = torch.nn.Linear(512, 5)
print(f"parameters: {sum(p.numel() for p in model.parameters())}, of which trainable: "
      f"{sum(p.numel() for p in model.parameters() if p.requires_grad)}")
# [end]

# [snippet: frozen-bn]
x = torch.randn(4, 3, 64, 64) * 3 + 1
mean0 = model.bn1.running_mean.clone()
model.train()
model(x)
print(f"train():         bn1.running_mean moved by "
      f"{(model.bn1.running_mean - mean0).abs().max().item():.4f}")
mean0 = model.bn1.running_mean.clone()
model.eval()
model.fc.train()
model(x)
print(f"eval() + head:   bn1.running_mean moved by "
      f"{(model.bn1.running_mean - mean0).abs().max().item():.4f}")
# [end]

# [snippet: groups]
model.layer4.requires_grad_(True)
optimizer = torch.optim.SGD([
    {"params": model.fc.parameters(), "lr": 0.1},
    {"params": model.layer4.parameters(), "lr": 0.01},
], momentum=0.9)
for g, group in enumerate(optimizer.param_groups):
    print(f"group {g}: lr {group['lr']}")
# [end]
print()

# [snippet: features]
body = create_feature_extractor(model, return_nodes=["layer2", "layer4"])
with torch.no_grad():
    for name, t in body(x).items():
        print(f"{name}: {list(t.shape)}")
# [end]
