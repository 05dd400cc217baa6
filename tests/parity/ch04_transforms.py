# Chapter 4 parity: image transforms against torchvision 0.14's functional API (tensor inputs).
# The random transforms call these same functions with randomly drawn parameters; the parameters'
# random streams differ from torchvision's by design (Kindling's per-sample generators), so the
# functions themselves are compared here. The C++ twin of each case is in ch04_transforms.cpp.
import torchvision.transforms.functional as TF
from torchvision.transforms import InterpolationMode

NEAREST = InterpolationMode.NEAREST


def u8(*shape):
    return randint(0, 256, *shape, dtype="uint8")


# ---- layout and dtype ---------------------------------------------------------------------------
case("to_tensor/uint8-hwc", lambda x: TF.to_tensor(x.numpy()), x=u8(5, 7, 3))
case("to_tensor/uint8-hw", lambda x: TF.to_tensor(x.numpy()), x=u8(6, 5))
case("to_tensor/float-hwc", lambda x: TF.to_tensor(x.numpy()), x=rand(4, 3, 2))
case("convert_image_dtype/uint8-float", lambda x: TF.convert_image_dtype(x, torch.float32), x=u8(3, 4, 5))
case("convert_image_dtype/float-uint8", lambda x: TF.convert_image_dtype(x, torch.uint8), x=rand(3, 4, 5))
case("normalize/rgb", lambda x: TF.normalize(x, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), x=rand(3, 6, 5))
case("normalize/batch-one-value", lambda x: TF.normalize(x, [0.5], [0.25]), x=rand(2, 1, 4, 4))
case("normalize/float64", lambda x: TF.normalize(x, [0.1, 0.2], [0.3, 0.4]), x=rand(2, 3, 3, dtype="float64"))

# ---- resize (bilinear, antialias=False) ----------------------------------------------------------
case("resize/float-down", lambda x: TF.resize(x, [5, 7], antialias=False), x=rand(3, 16, 20))
case("resize/float-up", lambda x: TF.resize(x, [20, 17], antialias=False), x=rand(3, 9, 11))
case("resize/float-mixed", lambda x: TF.resize(x, [13, 4], antialias=False), x=rand(2, 7, 9))
case("resize/smaller-edge", lambda x: TF.resize(x, 10, antialias=False), x=rand(3, 15, 23))
case("resize/max-size", lambda x: TF.resize(x, 10, max_size=12, antialias=False), x=rand(1, 15, 23))
case("resize/float64", lambda x: TF.resize(x, [6, 9], antialias=False), x=rand(3, 11, 5, dtype="float64"))
case("resize/batch", lambda x: TF.resize(x, [8, 8], antialias=False), x=rand(2, 3, 5, 6))
case("resize/gray-1hw", lambda x: TF.resize(x, [28, 28], antialias=False), x=rand(1, 20, 24))
# uint8 images are resized in float32 and rounded half to even. PyTorch's vectorised kernel sums the
# four weighted pixels in an order we do not reproduce bit for bit (float results differ by an ulp),
# so a value that is x.5 exactly in real arithmetic (e.g. 126.5 vs PyTorch's 126.50000763) may round
# the other way: uint8 results agree within 1 (compared as float, atol=1). resize/uint8-down happens
# to have no such ties and is compared exactly.
case("resize/uint8-down", lambda x: TF.resize(x, [11, 9], antialias=False), x=u8(3, 28, 28))
case("resize/uint8-up", lambda x: TF.resize(x, [32, 40], antialias=False).float(), x=u8(1, 28, 28),
     rtol=0, atol=1.0)

# ---- crops, padding, flips -----------------------------------------------------------------------
case("center_crop/odd-margin", lambda x: TF.center_crop(x, [4, 6]), x=rand(2, 9, 10))
case("center_crop/even-margin", lambda x: TF.center_crop(x, [4, 4]), x=rand(3, 10, 8))
case("center_crop/larger-than-image", lambda x: TF.center_crop(x, [12, 13]), x=rand(2, 9, 10))
case("center_crop/uint8", lambda x: TF.center_crop(x, 5), x=u8(3, 8, 7))
case("crop/partly-outside", lambda x: TF.crop(x, -2, 3, 6, 9), x=rand(1, 5, 8))
case("pad/ltrb", lambda x: TF.pad(x, [1, 2, 3, 4]), x=rand(3, 4, 5))
case("pad/fill-uint8", lambda x: TF.pad(x, [2, 2, 2, 2], fill=7), x=u8(1, 3, 3))
case("hflip/rgb", lambda x: TF.hflip(x), x=rand(3, 4, 5))
case("vflip/uint8", lambda x: TF.vflip(x), x=u8(3, 4, 5))

# ---- rotation (nearest, fill 0, same size) -------------------------------------------------------
for angle in [10.0, -7.5, 33.0, 90.0, 180.0]:
    case(f"rotate/float-{angle}", lambda x, a=angle: TF.rotate(x, a, interpolation=NEAREST, fill=[0.0] * 3),
         x=rand(3, 20, 24))
case("rotate/uint8-odd-size", lambda x: TF.rotate(x, 12.0, interpolation=NEAREST), x=u8(1, 27, 27))
case("rotate/batch", lambda x: TF.rotate(x, -4.0, interpolation=NEAREST), x=rand(2, 3, 16, 16))

# ---- colour --------------------------------------------------------------------------------------
case("adjust_brightness/float-up", lambda x: TF.adjust_brightness(x, 1.3), x=rand(3, 6, 6))
case("adjust_brightness/float-down", lambda x: TF.adjust_brightness(x, 0.6), x=rand(3, 6, 6))
case("adjust_brightness/uint8", lambda x: TF.adjust_brightness(x, 1.3), x=u8(3, 6, 6))
case("adjust_contrast/float-down", lambda x: TF.adjust_contrast(x, 0.7), x=rand(3, 8, 8))
case("adjust_contrast/float-up", lambda x: TF.adjust_contrast(x, 1.4), x=rand(3, 8, 8))
case("adjust_contrast/gray", lambda x: TF.adjust_contrast(x, 0.5), x=rand(1, 8, 8))
case("adjust_contrast/batch", lambda x: TF.adjust_contrast(x, 1.2), x=rand(2, 3, 5, 5))
case("adjust_contrast/uint8", lambda x: TF.adjust_contrast(x, 0.8), x=u8(3, 8, 8))
case("rgb_to_grayscale/float", lambda x: TF.rgb_to_grayscale(x), x=rand(3, 5, 6))
case("rgb_to_grayscale/uint8", lambda x: TF.rgb_to_grayscale(x), x=u8(3, 5, 6))
