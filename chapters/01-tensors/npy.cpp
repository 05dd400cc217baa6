// Chapter 1 — .npy files: save a tensor from C++, read it back here and with NumPy
// (np.load).
#include <kindling/tensor.hpp>

#include <fstream>
#include <iostream>
#include <string>

namespace kd = kindling;

int main() {
  kd::manual_seed(0);
  // [snippet: save]
  kd::Tensor w = kd::randn({3, 4});
  kd::save_npy(w, "ch01_weights.npy");  // np.save("ch01_weights.npy", w)
  kd::Tensor back = kd::load_npy("ch01_weights.npy");
  // [end]
  std::cout << "saved:\n"
            << w << "\nloaded: shape " << kd::shape_str(back.shape()) << ", "
            << kd::dtype_name(back.dtype()) << ", equal: " << std::boolalpha
            << kd::equal(w, back) << "\n";

  // [snippet: header]
  // A .npy file: a 10-byte preamble, a Python-dict header, the raw values.
  std::ifstream in("ch01_weights.npy", std::ios::binary);
  std::string file((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  const auto header_len =
      static_cast<unsigned char>(file[8]) | (static_cast<unsigned char>(file[9]) << 8);
  std::cout << "magic: \\x93" << file.substr(1, 5) << ", version " << int(file[6])
            << "." << int(file[7]) << "\nheader: " << file.substr(10, header_len)
            << "file size: " << file.size() << " bytes = " << 10 + header_len
            << " (preamble + header) + " << w.nbytes() << " (data)\n";
  // [end]

  // [snippet: views]
  kd::save_npy(w.t(), "ch01_weights_t.npy");  // a view is written in row-major order
  std::cout << "w.t() round trip equal: "
            << kd::equal(kd::load_npy("ch01_weights_t.npy"), w.t()) << "\n";
  // [end]

  // [snippet: bad-file]
  std::ofstream("ch01_truncated.npy", std::ios::binary)
      << file.substr(0, file.size() - 5);
  try {
    kd::load_npy("ch01_truncated.npy");
  } catch (const kd::IOError& e) {
    std::cout << "IOError: " << e.what() << "\n";
  }
  // [end]
}
