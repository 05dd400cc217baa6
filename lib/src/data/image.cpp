// Image files: PNG through libpng, JPEG through libjpeg-turbo (Debian's, hardened and fuzzed by
// their projects and by OSS-Fuzz). Both libraries report errors with longjmp, so each decoding step
// lives in a small function that holds no C++ object with a destructor (a longjmp over one would be
// undefined behaviour): a header step that learns the size, the caps checked in C++, then a pixel
// step that writes into the tensor's own buffer.
#include "kindling/data/image.hpp"

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "tensor/file_io.hpp"

namespace kindling::data {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& why) {
  throw IOError("load_image: cannot decode " + name + ": " + why);
}

// ---- PNG -----------------------------------------------------------------------------------------
struct PngCtx {
  const unsigned char* data;
  std::size_t size, pos;
  png_structp png;
  png_infop info;
  png_uint_32 width, height;
  int channels;  // after the transforms below: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
  char message[200];
};

void png_on_error(png_structp png, png_const_charp msg) {
  auto* c = static_cast<PngCtx*>(png_get_error_ptr(png));
  std::snprintf(c->message, sizeof c->message, "%s", msg ? msg : "unknown libpng error");
  png_longjmp(png, 1);
}
void png_on_warning(png_structp, png_const_charp) {}  // benign (e.g. an unknown ancillary chunk)

void png_read_memory(png_structp png, png_bytep out, png_size_t n) {
  auto* c = static_cast<PngCtx*>(png_get_io_ptr(png));
  if (n > c->size - c->pos) png_error(png, "file truncated (the data ends inside a chunk)");
  std::memcpy(out, c->data + c->pos, n);
  c->pos += n;
}

// Step 1: signature, header, and the transforms to 8-bit gray/GA/RGB/RGBA. Returns false on error.
bool png_header(PngCtx* c) {
  c->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, c, png_on_error, png_on_warning);
  if (!c->png) return std::snprintf(c->message, sizeof c->message, "out of memory"), false;
  c->info = png_create_info_struct(c->png);
  if (!c->info) return std::snprintf(c->message, sizeof c->message, "out of memory"), false;
  if (setjmp(png_jmpbuf(c->png))) return false;
  png_set_read_fn(c->png, c, png_read_memory);
  png_set_user_limits(c->png, 1u << 20, 1u << 20);
  png_set_chunk_malloc_max(c->png, 8u << 20);  // no ancillary chunk (zTXt, iCCP) may inflate past 8 MB
  png_read_info(c->png, c->info);
  c->width = png_get_image_width(c->png, c->info);
  c->height = png_get_image_height(c->png, c->info);
  png_set_expand(c->png);     // palette -> RGB, gray < 8 bits -> 8 bits, tRNS -> alpha
  png_set_strip_16(c->png);   // 16-bit samples keep their high byte (as PIL's 8-bit modes do)
  png_set_interlace_handling(c->png);
  png_read_update_info(c->png, c->info);
  c->channels = png_get_channels(c->png, c->info);
  return true;
}

// Step 2: every row into `dst` (height * width * channels bytes), `rows` pointing into it.
bool png_pixels(PngCtx* c, png_bytepp rows) {
  if (setjmp(png_jmpbuf(c->png))) return false;
  png_read_image(c->png, rows);
  png_read_end(c->png, nullptr);
  return true;
}

struct PngGuard {
  PngCtx* c;
  ~PngGuard() {
    if (c->png) png_destroy_read_struct(&c->png, c->info ? &c->info : nullptr, nullptr);
  }
};

// ---- JPEG ----------------------------------------------------------------------------------------
struct JpegErr {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX + 64];
};

void jpeg_on_error(j_common_ptr cinfo) {
  auto* e = reinterpret_cast<JpegErr*>(cinfo->err);
  if (e->message[0] == '\0') (*cinfo->err->format_message)(cinfo, e->message);
  std::longjmp(e->jump, 1);
}
// A truncated file is a warning in libjpeg (it pads with grey); here it is an error, like PIL's
// "image file is truncated": a damaged sample must not train the model silently.
void jpeg_on_message(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) jpeg_on_error(cinfo);
}
// Progressive files can hold thousands of tiny scans that cost a full pass each (a known denial of
// service); libjpeg-turbo's own tools stop at 500 scans, and so do we.
void jpeg_on_progress(j_common_ptr cinfo) {
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->input_scan_number > 500) {
    auto* e = reinterpret_cast<JpegErr*>(cinfo->err);
    std::snprintf(e->message, sizeof e->message, "more than 500 scans in a progressive JPEG (hostile file?)");
    jpeg_on_error(cinfo);
  }
}

struct JpegCtx {
  jpeg_decompress_struct cinfo;
  JpegErr err;
  jpeg_progress_mgr progress;
  bool created;
  int channels;
};

bool jpeg_header(JpegCtx* c, const unsigned char* data, std::size_t size, long max_memory) {
  c->cinfo.err = jpeg_std_error(&c->err.pub);
  c->err.pub.error_exit = jpeg_on_error;
  c->err.pub.emit_message = jpeg_on_message;
  c->err.message[0] = '\0';
  if (setjmp(c->err.jump)) return false;
  jpeg_create_decompress(&c->cinfo);
  c->created = true;
  c->cinfo.mem->max_memory_to_use = max_memory;  // libjpeg's own allocations fail past this
  c->progress.progress_monitor = jpeg_on_progress;
  c->cinfo.progress = &c->progress;
  jpeg_mem_src(&c->cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&c->cinfo, TRUE);
  if (c->cinfo.jpeg_color_space == JCS_CMYK || c->cinfo.jpeg_color_space == JCS_YCCK) {
    std::snprintf(c->err.message, sizeof c->err.message, "CMYK JPEGs are not supported (convert it to RGB)");
    return false;
  }
  const bool gray = c->cinfo.num_components == 1;
  c->cinfo.out_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
  c->channels = gray ? 1 : 3;
  return true;
}

bool jpeg_pixels(JpegCtx* c, unsigned char* dst, std::size_t row_bytes) {
  if (setjmp(c->err.jump)) return false;
  jpeg_start_decompress(&c->cinfo);
  if (static_cast<std::size_t>(c->cinfo.output_width) * static_cast<std::size_t>(c->cinfo.output_components) != row_bytes) {
    std::snprintf(c->err.message, sizeof c->err.message, "unexpected output geometry");
    return false;
  }
  while (c->cinfo.output_scanline < c->cinfo.output_height) {
    JSAMPROW row = dst + static_cast<std::size_t>(c->cinfo.output_scanline) * row_bytes;
    jpeg_read_scanlines(&c->cinfo, &row, 1);
  }
  jpeg_finish_decompress(&c->cinfo);
  return true;
}

struct JpegGuard {
  JpegCtx* c;
  ~JpegGuard() {
    if (c->created) jpeg_destroy_decompress(&c->cinfo);
  }
};

// ---- shared --------------------------------------------------------------------------------------
void check_size(std::uint64_t w, std::uint64_t h, const ImageLimits& limits, const std::string& name) {
  if (w == 0 || h == 0) fail(name, "the image has no pixels (" + std::to_string(w) + " x " + std::to_string(h) + ")");
  if (w > static_cast<std::uint64_t>(limits.max_side) || h > static_cast<std::uint64_t>(limits.max_side) ||
      w * h > static_cast<std::uint64_t>(limits.max_pixels)) {
    fail(name, "the file claims " + std::to_string(w) + " x " + std::to_string(h) +
                   " pixels, above the limit (ImageLimits: max_side " + std::to_string(limits.max_side) +
                   ", max_pixels " + std::to_string(limits.max_pixels) +
                   "). Hint: a decompression bomb or a corrupt file; raise the limits only for files you trust.");
  }
}

// stb_image's (and so this library's historical) channel conversion: luma = (77 r + 150 g + 29 b) >> 8,
// gray -> RGB replicates, alpha dropped or set to 255.
Tensor convert_channels(const Tensor& src, int to) {
  const std::int64_t h = src.size(0), w = src.size(1), from = src.size(2);
  if (from == to) return src;
  Tensor out = empty({h, w, to}, {.dtype = kUInt8});
  const auto* s = static_cast<const std::uint8_t*>(src.raw_data_ptr());
  auto* d = static_cast<std::uint8_t*>(out.raw_data_ptr());
  for (std::int64_t i = 0; i < h * w; ++i, s += from, d += to) {
    const bool color = from >= 3;
    const std::uint8_t a = (from == 2 || from == 4) ? s[from - 1] : 255;
    const std::uint8_t y = color ? static_cast<std::uint8_t>((s[0] * 77 + s[1] * 150 + s[2] * 29) >> 8) : s[0];
    switch (to) {
      case 1: d[0] = y; break;
      case 2: d[0] = y, d[1] = a; break;
      case 3: d[0] = color ? s[0] : y, d[1] = color ? s[1] : y, d[2] = color ? s[2] : y; break;
      case 4: d[0] = color ? s[0] : y, d[1] = color ? s[1] : y, d[2] = color ? s[2] : y, d[3] = a; break;
    }
  }
  return out;
}

const char* other_format(const unsigned char* p, std::size_t n) {
  auto starts = [&](const char* magic, std::size_t len) { return n >= len && std::memcmp(p, magic, len) == 0; };
  if (starts("GIF8", 4)) return "GIF";
  if (starts("BM", 2)) return "BMP";
  if (starts("#?RADIANCE", 10) || starts("#?RGBE", 6)) return "HDR";
  if (starts("8BPS", 4)) return "PSD";
  if (starts("RIFF", 4) && n >= 12 && std::memcmp(p + 8, "WEBP", 4) == 0) return "WebP";
  if (n >= 2 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7') return "PNM";
  if (starts("II*\0", 4) || starts("MM\0*", 4)) return "TIFF";
  return nullptr;
}

}  // namespace

Tensor decode_image(const void* data, std::size_t size, int channels, const ImageLimits& limits, const std::string& name) {
  if (channels < 0 || channels > 4) {
    throw ValueError("load_image: channels must be 0 (as stored), 1, 2, 3 or 4, got " + std::to_string(channels));
  }
  const auto* bytes = static_cast<const unsigned char*>(data);
  Tensor stored;
  if (size >= 8 && png_sig_cmp(bytes, 0, 8) == 0) {
    PngCtx c{};
    c.data = bytes, c.size = size;
    PngGuard guard{&c};
    if (!png_header(&c)) fail(name, std::string("libpng: ") + c.message);
    check_size(c.width, c.height, limits, name);
    stored = empty({static_cast<std::int64_t>(c.height), static_cast<std::int64_t>(c.width), c.channels}, {.dtype = kUInt8});
    auto* base = static_cast<png_bytep>(stored.raw_data_ptr());
    const std::size_t row_bytes = static_cast<std::size_t>(c.width) * static_cast<std::size_t>(c.channels);
    if (png_get_rowbytes(c.png, c.info) != row_bytes) fail(name, "libpng: unexpected row size");
    std::vector<png_bytep> rows(c.height);
    for (png_uint_32 y = 0; y < c.height; ++y) rows[y] = base + y * row_bytes;
    if (!png_pixels(&c, rows.data())) fail(name, std::string("libpng: ") + c.message);
  } else if (size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) {
    JpegCtx c{};
    JpegGuard guard{&c};
    // libjpeg's working memory (progressive coefficients, buffers): a few times the largest image.
    const long max_memory = static_cast<long>(std::min<std::int64_t>(limits.max_pixels, std::int64_t{1} << 40) * 8 + (64 << 20));
    if (!jpeg_header(&c, bytes, size, max_memory)) fail(name, std::string("libjpeg: ") + c.err.message);
    check_size(c.cinfo.image_width, c.cinfo.image_height, limits, name);
    stored = empty({static_cast<std::int64_t>(c.cinfo.image_height), static_cast<std::int64_t>(c.cinfo.image_width), c.channels},
                   {.dtype = kUInt8});
    if (!jpeg_pixels(&c, static_cast<unsigned char*>(stored.raw_data_ptr()),
                     static_cast<std::size_t>(c.cinfo.image_width) * static_cast<std::size_t>(c.channels))) {
      fail(name, std::string("libjpeg: ") + c.err.message);
    }
  } else if (const char* format = other_format(bytes, size)) {
    fail(name, std::string("it is a ") + format +
                   " file; Kindling decodes PNG and JPEG only (with libpng and libjpeg-turbo, which are safe on "
                   "untrusted files). Hint: convert it, e.g. PIL's Image.open(f).save('x.png')");
  } else {
    fail(name, size == 0 ? std::string("the file is empty")
                         : std::string("not a PNG or JPEG file (unknown signature)"));
  }
  return convert_channels(stored, channels == 0 ? static_cast<int>(stored.size(2)) : channels);
}

Tensor load_image(const std::string& path, int channels, const ImageLimits& limits) {
  if (channels < 0 || channels > 4) {
    throw ValueError("load_image: channels must be 0 (as stored), 1, 2, 3 or 4, got " + std::to_string(channels));
  }
  const std::string bytes = kindling::detail::read_file(path, limits.max_file_bytes, "load_image");
  return decode_image(bytes.data(), bytes.size(), channels, limits, path);
}

// ---- writing -------------------------------------------------------------------------------------
std::string encode_png(const Tensor& image) {
  if (!image.defined() || image.dtype() != kUInt8 || (image.dim() != 2 && image.dim() != 3) ||
      (image.dim() == 3 && (image.size(2) < 1 || image.size(2) > 4)) || image.device() != kCPU) {
    throw ValueError("save_png: expected a uint8 image [H, W, C] with C in 1..4 or [H, W] on the CPU, got " +
                     (image.defined() ? shape_str(image.shape()) + " " + dtype_name(image.dtype()) : "undefined") +
                     ". Hint: a CHW float image x becomes HWC uint8 with (x * 255).clamp(0, 255).to(kUInt8).permute({1, 2, 0}).");
  }
  if (image.size(0) < 1 || image.size(1) < 1 || image.size(0) > 1000000 || image.size(1) > 1000000) {
    throw ValueError("save_png: a PNG is 1 to 1,000,000 pixels high and wide, got " + shape_str(image.shape()));
  }
  Tensor hwc = image.contiguous();
  const int c = hwc.dim() == 3 ? static_cast<int>(hwc.size(2)) : 1;
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  img.width = static_cast<png_uint_32>(hwc.size(1));
  img.height = static_cast<png_uint_32>(hwc.size(0));
  img.format = c == 1 ? PNG_FORMAT_GRAY : c == 2 ? PNG_FORMAT_GA : c == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
  png_alloc_size_t n = 0;
  if (!png_image_write_to_memory(&img, nullptr, &n, 0, hwc.raw_data_ptr(), 0, nullptr)) {
    const std::string why = img.message;
    png_image_free(&img);
    throw IOError("save_png: libpng cannot encode the image: " + why);
  }
  std::string out(n, '\0');
  if (!png_image_write_to_memory(&img, out.data(), &n, 0, hwc.raw_data_ptr(), 0, nullptr)) {
    const std::string why = img.message;
    png_image_free(&img);
    throw IOError("save_png: libpng cannot encode the image: " + why);
  }
  out.resize(n);
  return out;
}

void save_png(const Tensor& image, const std::string& path) {
  const std::string bytes = encode_png(image);  // encode fully first: a bad image never opens the file
  // stbi_write_png ignored fwrite errors: a full disk replaced a good file with a truncated one.
  kindling::detail::write_file_atomically(path, bytes, "save_png");
}

}  // namespace kindling::data
