#pragma once
/// @file
/// Saving and loading state dicts in the safetensors format (https://github.com/huggingface/safetensors):
///
///     [8 bytes: N, little-endian u64][N bytes: JSON header, space-padded][raw tensor bytes]
///
/// The header maps each name to {"dtype": "F32", "shape": [128, 784], "data_offsets": [begin, end]}
/// (offsets relative to the start of the byte buffer) plus an optional "__metadata__" map of strings.
/// Unlike Python's pickle-based torch.save, loading a safetensors file never runs code, and every
/// size and offset can be checked before a single byte is trusted — which load() does.
/// PyTorch reads these files with the `safetensors` package, or with NumPy and json.
#include <map>
#include <string>

#include "kindling/nn/state_dict.hpp"
#include "kindling/tensor/device.hpp"

namespace kindling {

/// Writes `state_dict` to `path` as safetensors, atomically (a temporary file in the same folder is
/// written, flushed to disk and renamed over `path`: a crash never leaves a half-written file).
/// Tensors are stored contiguous, little-endian; dtypes F32, F64, I64, U8, BOOL. `metadata` becomes
/// the header's "__metadata__". Throws kd::IOError naming the file on failure.
void save(const StateDict& state_dict, const std::string& path,
          const std::map<std::string, std::string>& metadata = {});

/// Reads a safetensors file into a StateDict (in the file's data order). Every header field, size and
/// offset is checked; truncated, corrupt or hostile files are refused with a kd::IOError naming the
/// file and the problem. `map_location` is where the tensors go (torch.load's map_location): a
/// device that is not set up (kd::cuda::is_available() is false) throws kd::DeviceError.
StateDict load(const std::string& path, Device map_location = kCPU);

/// The "__metadata__" map of a safetensors file (empty if it has none).
std::map<std::string, std::string> load_metadata(const std::string& path);

}  // namespace kindling
