"""scripts/convert_torchvision.py: torchvision weights -> safetensors -> torch.save, bit for bit; the
--model strict check; hostile safetensors files refused with the file and the key named.
(That Kindling loads what the script writes is tests/parity/ch09_vision: its weights go through it.)"""
import json
import os
import struct
import sys
import tempfile
import unittest

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import convert_torchvision as cv  # noqa: E402


class ConvertTorchvision(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = lambda name: os.path.join(self.dir.name, name)

    def tearDown(self):
        self.dir.cleanup()

    def raw(self, name, header, data=b""):
        text = json.dumps(header).encode()
        with open(self.path(name), "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + data)
        return self.path(name)

    def test_round_trip_is_exact_and_keeps_order_and_dtypes(self):
        torch.manual_seed(0)
        m = torchvision.models.mobilenet_v2(weights=None, num_classes=5)
        for b in m.modules():
            if isinstance(b, torch.nn.BatchNorm2d):
                b.running_var.uniform_(0.5, 2.0)
                b.num_batches_tracked.fill_(3)
        sd = m.state_dict()
        sd["extra.half"] = torch.randn(3, 4).half()
        sd["extra.bf16"] = torch.randn(2).bfloat16()
        sd["extra.flags"] = torch.tensor([True, False])
        torch.save({"epoch": 3, "state_dict": sd}, self.path("ckpt.pth"))  # a checkpoint holding one
        self.assertEqual(cv.main(["to-kindling", self.path("ckpt.pth"), self.path("w.safetensors")]), 0)
        self.assertEqual(cv.main(["to-torch", self.path("w.safetensors"), self.path("back.pth")]), 0)
        back = torch.load(self.path("back.pth"))
        self.assertEqual(list(back), list(sd))
        for k, v in sd.items():
            self.assertEqual(back[k].dtype, v.dtype, k)
            self.assertTrue(torch.equal(back[k], v), k)

    def test_strict_check_names_the_keys(self):
        torch.save(torchvision.models.resnet18(weights=None).state_dict(), self.path("r18.pth"))
        self.assertEqual(cv.main(["to-kindling", self.path("r18.pth"), self.path("r18.st"), "--model", "resnet18"]), 0)
        with self.assertRaises(RuntimeError) as e:
            cv.check_against("resnet34", cv.load_safetensors(self.path("r18.st")))
        self.assertIn("layer1.2.conv1.weight", str(e.exception))
        self.assertEqual(cv.main(["to-kindling", self.path("r18.pth"), self.path("x.st"), "--model", "resnet34"]), 1)
        self.assertFalse(os.path.exists(self.path("x.st")))  # nothing written on failure

    def test_hostile_files_are_refused_naming_file_and_key(self):
        cases = {
            "truncated": (self.raw("t.st", {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8),
                          "'w'"),
            "huge shape": (self.raw("h.st", {"w": {"dtype": "F32", "shape": [2 ** 40, 2 ** 40],
                                                   "data_offsets": [0, 16]}}, b"\0" * 16), "'w'"),
            "bad dtype": (self.raw("d.st", {"w": {"dtype": "F99", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4),
                          "F99"),
            "negative size": (self.raw("n.st", {"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}},
                                       b"\0" * 4), "'w'"),
        }
        with open(self.path("big_header.st"), "wb") as f:
            f.write(struct.pack("<Q", 2 ** 60) + b"{}")
        cases["header size"] = (self.path("big_header.st"), "header claims")
        with open(self.path("short.st"), "wb") as f:
            f.write(b"\1\2")
        cases["shorter than 8 bytes"] = (self.path("short.st"), "truncated")
        for what, (path, needle) in cases.items():
            with self.subTest(what):
                with self.assertRaises(cv.ConvertError) as e:
                    cv.load_safetensors(path)
                self.assertIn(path, str(e.exception))
                self.assertIn(needle, str(e.exception))


if __name__ == "__main__":
    unittest.main()
