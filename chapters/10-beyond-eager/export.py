# PyTorch's side of exporting: the same CNN through torch.onnx.export, and ONNX's own
# checks (onnx.checker with full_check, which runs shape inference too) on both files:
# PyTorch's and the one Kindling's export.cpp wrote. Then Kindling's file is listed node
# by node with the shapes ONNX infers, and drawn (ch10_cnn_onnx.dot).
# book: inputs ch10_cnn.onnx
import onnx
import torch
from torch import nn


# [snippet: cnn]
class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        h = self.pool(self.relu(self.conv1(x)))
        h = self.pool(self.relu(self.conv2(h)))
        return self.fc(h.flatten(1))
# [end]


torch.manual_seed(0)
model = SmallCNN().eval()
# [snippet: export]
torch.onnx.export(model, torch.randn(1, 1, 28, 28), "ch10_cnn_torch.onnx",
                  opset_version=17, input_names=["input"], output_names=["logits"],
                  dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
# [end]

# [snippet: check]
for path in ["ch10_cnn_torch.onnx", "ch10_cnn.onnx"]:
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)  # raises if anything is wrong
    ops = [n.op_type for n in m.graph.node]
    print(f"{path}: checker ok, opset {m.opset_import[0].version}, "
          f"producer {m.producer_name}, nodes: {' '.join(ops)}")
# [end]

# [snippet: infer]
m = onnx.shape_inference.infer_shapes(onnx.load("ch10_cnn.onnx"))
shapes = {}
for v in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output):
    dims = [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
    shapes[v.name] = "[" + ", ".join(map(str, dims)) + "]"
for init in m.graph.initializer:
    shapes[init.name] = str(list(init.dims))
for n in m.graph.node:
    ins = ", ".join(n.input)
    print(f"{n.op_type:8} {ins:33} -> {n.output[0]} {shapes[n.output[0]]}")
# [end]

# The drawing: one box per node, an edge per tensor with the shape ONNX inferred.
producer = {o: f"n{i}" for i, n in enumerate(m.graph.node) for o in n.output}
weights = {t.name for t in m.graph.initializer}
lines = ["digraph onnx {", '  node [fontname="monospace", fontsize=10];',
         '  edge [fontname="monospace", fontsize=9];',
         '  input [shape=ellipse, style=bold]; logits [shape=ellipse, style=bold];']
for i, n in enumerate(m.graph.node):
    held = [w for w in n.input if w in weights]
    label = n.op_type + "".join(f"\\n{w} {shapes[w]}" for w in held)
    lines.append(f'  n{i} [shape=box, label="{label}"];')
    for name in n.input:
        if name not in weights:
            edge = f'{producer.get(name, name)} -> n{i}'
            lines.append(f'  {edge} [label=" {shapes[name]}"];')
lines.append(f'  n{len(m.graph.node) - 1} -> logits [label=" {shapes["logits"]}"];')
with open("ch10_cnn_onnx.dot", "w") as f:
    f.write("\n".join(lines + ["}"]) + "\n")
