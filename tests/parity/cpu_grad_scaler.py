"""PyTorch 1.13's GradScaler on the CPU, for the oracles of chapter 6 (tests/parity/ch06_amp.py and
tests/grading/ch06/pytorch.py).

PyTorch 1.13 runs GradScaler only on CUDA: on the CPU it disables itself, scale() asserts a CUDA
tensor, and its two kernels (_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_) have
no CPU version. CPUGradScaler is PyTorch's GradScaler class -- its stages, step skipping, update and
state_dict, all its Python -- with those two kernels written below for the CPU exactly as PyTorch's
CUDA kernels compute them (aten/src/ATen/native/cuda/AmpKernels.cu), and its CUDA assertions left
out (scale() reduced to its line for one tensor, outputs * self._scale).
"""
import torch
import torch.cuda.amp.grad_scaler as gs


def _non_finite_check_and_unscale_(grads, found_inf, inv_scale):
    """AmpKernels.cu: found_inf = 1 if any element is inf/NaN; every element *= inv_scale in
    float32 (float64 for double), left alone when inv_scale == 1."""
    for g in grads:
        if not bool(torch.isfinite(g).all()):
            found_inf.fill_(1.0)
        if float(inv_scale) != 1.0:
            g.copy_((g.double() if g.dtype == torch.float64 else g.float()) * inv_scale.to(
                torch.float64 if g.dtype == torch.float64 else torch.float32))


def _update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    """AmpKernels.cu's _amp_update_scale_cuda_kernel: float32 scale, int32 tracker."""
    s = float(scale)
    if float(found_inf):
        scale.fill_(s * backoff_factor)
        growth_tracker.fill_(0)
    else:
        successful = int(growth_tracker) + 1
        if successful == growth_interval:
            grown = torch.tensor(s * growth_factor, dtype=torch.float32)
            if bool(torch.isfinite(grown)):
                scale.copy_(grown)
            growth_tracker.fill_(0)
        else:
            growth_tracker.fill_(successful)
    return scale


torch._amp_foreach_non_finite_check_and_unscale_ = _non_finite_check_and_unscale_
torch._amp_update_scale_ = _update_scale_
gs.amp_definitely_not_available = lambda: False  # lets the constructor keep enabled=True


class _CPUReplicator(gs._MultiDeviceReplicator):
    def __init__(self, master_tensor):  # PyTorch's, without its CUDA assertion
        self.master = master_tensor
        self._per_device_tensors = {}


gs._MultiDeviceReplicator = _CPUReplicator


class CPUGradScaler(gs.GradScaler):
    def scale(self, outputs):  # PyTorch's scale() for one tensor, without its CUDA assertion
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init_scale_growth_tracker(outputs.device)
        return outputs * self._scale.to(device=outputs.device)
