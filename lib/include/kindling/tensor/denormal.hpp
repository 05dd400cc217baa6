#pragma once
/// @file
/// Flushing denormal numbers to zero (torch.set_flush_denormal).
///
/// A float32 below 2^-126 (about 1.2e-38) is *denormal* (subnormal): it keeps some precision by giving
/// up exponent bits. On many CPUs arithmetic that reads or makes one is slow -- on Intel cores each
/// such operation takes a microcode assist of a hundred cycles or more. Training makes them: Adam's
/// running averages of a weight whose gradient stays zero (a dead ReLU unit) decay by 0.9 or 0.999 per
/// step until they pass through the denormal range. Flushing treats denormal inputs as zero and rounds
/// denormal results to zero, which changes values only below 1e-38 and removes the assists.
///
/// As in PyTorch, it is off by default and applies to the calling thread only (it is the thread's
/// MXCSR register on x86-64: the FTZ and DAZ bits).
namespace kindling {

/// Turns flushing on or off for the calling thread. Returns true when the CPU supports it (x86-64);
/// elsewhere it returns false and changes nothing, as torch.set_flush_denormal does.
bool set_flush_denormal(bool on);

/// Whether the calling thread flushes denormals now.
bool flush_denormal();

}  // namespace kindling
