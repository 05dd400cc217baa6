# Chapter 10 parity: PyTorch's own torch.onnx.export of a SimpleNet-like MLP, a small CNN and
# torchvision's ResNet-18 and MobileNetV2, written
# into the oracle folder with a dynamic batch dimension; the C++ side imports them with
# kd::onnx::load and must give the outputs PyTorch gives (at another batch size than the export's).
import os
import sys

OUT = sys.argv[2]
os.makedirs(OUT, exist_ok=True)
TOL = dict(rtol=1e-4, atol=1e-5)


class SimpleNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(784, 64)
        self.fc2 = torch.nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2), torch.nn.ReLU(),
            torch.nn.AvgPool2d(2), torch.nn.Dropout(0.3))
        self.fc = torch.nn.Linear(16 * 3 * 3, 10)

    def forward(self, x):
        return torch.log_softmax(self.fc(torch.flatten(self.features(x), 1)), dim=1)


def exported(name, cls, shape):
    torch.manual_seed(10)
    m = cls().eval()
    return export_module(name, m, shape)


def export_module(name, m, shape):
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):  # statistics that are not 0 and 1, so they matter
                mod.running_mean.normal_(0.0, 0.2)
                mod.running_var.uniform_(0.5, 2.0)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.normal_(0.0, 0.1)
    torch.onnx.export(m, torch.randn(*shape), os.path.join(OUT, name + ".onnx"), input_names=["input"],
                      output_names=["output"], dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                      opset_version=13)

    def fn(x):
        with torch.no_grad():
            return m(x)
    return fn


case("simplenet/eval", exported("simplenet", SimpleNet, (2, 1, 28, 28)), x=randn(5, 1, 28, 28), **TOL)
case("cnn/eval", exported("cnn", SmallCNN, (2, 1, 28, 28)), x=randn(3, 1, 28, 28), **TOL)


# Chapter 9's zoo as torchvision builds it, exported by PyTorch (its Conv / BatchNorm / Clip / Gemm /
# GlobalAveragePool / Flatten spelling, not Kindling's exporter's): random weights, perturbed statistics.
import torchvision  # noqa: E402

torch.manual_seed(11)
case("resnet18/eval", export_module("resnet18", torchvision.models.resnet18(num_classes=10).eval(), (2, 3, 64, 64)),
     x=randn(3, 3, 64, 64), rtol=1e-3, atol=1e-4)
case("mobilenet_v2/eval",
     export_module("mobilenet_v2", torchvision.models.mobilenet_v2(num_classes=10).eval(), (2, 3, 64, 64)),
     x=randn(3, 3, 64, 64), rtol=1e-3, atol=1e-4)
