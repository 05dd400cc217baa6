#!/usr/bin/python3
"""The object-file policy for answer files (issue 26): what a compiled answer file may contain.

An answer file is compiled into the library, so whatever it defines or runs is inside every graded test
process and milestone program. scripts/compile_piece.py applies these rules to every answer file a
learner (or a planted submission) wrote, after compiling it in the sandbox; a refused file scores 0 for
its exercise, with the rule and the reason. The reference answers pass them (tests/tools/test_chapters.py
grades solutions/ through the same launcher; tests/tools/test_piece_policy.py tests each rule).

Rules, and why:
  sources      the answer file and the headers it includes from its own chapter folder are regular files
               (no symbolic links), and name no file outside the chapter folder by a path (`#include
               "../..."`, an absolute path) or by `__has_include`: the only headers an answer needs are the
               system's, kindling's (`<kindling/...>`) and the layer's private ones (`"tensor/pieces.hpp"`).
  preprocessed in the text the compiler compiles (its -E output), every file comes from the system, lib/include,
               the layer's private headers, the build's generated headers or the learner's chapter folder;
               the learner's own lines hold no `asm`/`__asm__` (`.incbin` embeds any file the compiler can
               read), no `#pragma`/`_Pragma` but a few harmless ones (`#pragma weak` and `redefine_extname`
               rename symbols), no `namespace std` (a fake std class could redefine the runtime).
  sections     no code that runs before main or at exit by itself: no .init_array, .preinit_array,
               .fini_array, .ctors, .dtors, .init, .fini (a static constructor writes a test's record and
               exits); only the ordinary sections a C++ compiler emits for functions and their data.
  definitions  the strong global symbols it defines are the piece's own (those its pristine stub defines):
               helpers have internal linkage (an anonymous namespace or `static`), so an answer file cannot
               replace a library function, `main`, or another exercise's piece. Weak definitions only as the
               compiler emits them for templates and inline functions (in a COMDAT group, C++-mangled); the
               build links the learner's objects last, so where the library has the same one, the library's
               wins. No GNU ifunc (its resolver runs while the program loads), no common symbols.
  calls        undefined symbols: kindling's own API (the layers the program links), the C++ runtime (std::,
               the ABI) and a short list of C functions (memory, strings, math, printing) -- and none of the
               calls that would reach outside the process or end it (exit/_exit/abort, getenv, files, processes,
               dlopen, syscall, sockets, mmap, signals, std::filesystem, file streams, kindling's own file I/O),
               nor, per piece, the library routines that would do the piece's job (strided_copy as zero_ + add_).
Standard library only (a small ELF64 reader; c++filt from binutils to demangle).
"""
from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from dataclasses import dataclass, field

# ---- ELF64 (little-endian, relocatable objects) ---------------------------------------------------------
SHT_SYMTAB, SHT_GROUP, SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY, SHT_SYMTAB_SHNDX = 2, 17, 14, 15, 16, 18
SHN_UNDEF, SHN_ABS, SHN_COMMON, SHN_XINDEX = 0, 0xFFF1, 0xFFF2, 0xFFFF
STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 0, 1, 2, 10
STT_SECTION, STT_FILE, STT_COMMON, STT_GNU_IFUNC = 3, 4, 5, 10
GRP_COMDAT = 1
SHF_EXECINSTR = 4


class NotElf(Exception):
    pass


@dataclass
class Symbol:
    name: str
    bind: int
    type: int
    shndx: int
    comdat: bool = False


@dataclass
class ObjectFile:
    sections: list[tuple[str, int, int]] = field(default_factory=list)   # (name, type, flags)
    symbols: list[Symbol] = field(default_factory=list)


def read_object(path: str) -> ObjectFile:
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        raise NotElf(f"{path} is not an ELF object")
    if data[4] != 2 or data[5] != 1:
        raise NotElf(f"{path} is not a 64-bit little-endian ELF object")
    (_, e_type, _, _, _, _, e_shoff, _, _, _, _, e_shentsize, e_shnum, e_shstrndx) = \
        struct.unpack_from("<16sHHIQQQIHHHHHH", data, 0)
    if e_type != 1:
        raise NotElf(f"{path} is not a relocatable object (ELF type {e_type})")

    def shdr(i: int) -> tuple:
        return struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize)

    first = shdr(0)
    if e_shnum == 0:            # extended numbering: the count is in section 0
        e_shnum = first[5]
    if e_shstrndx == SHN_XINDEX:
        e_shstrndx = first[6]
    headers = [shdr(i) for i in range(e_shnum)]
    strtab_of = headers[e_shstrndx]

    def cstr(off: int, at: int) -> str:
        end = data.index(b"\0", off + at)
        return data[off + at:end].decode("utf-8", errors="replace")

    obj = ObjectFile()
    for h in headers:
        obj.sections.append((cstr(strtab_of[4], h[0]), h[1], h[2]))
    comdat_sections: set[int] = set()
    for h in headers:
        if h[1] == SHT_GROUP:
            words = struct.unpack_from(f"<{h[5] // 4}I", data, h[4])
            if words and words[0] & GRP_COMDAT:
                comdat_sections.update(words[1:])
    xindex: list[int] = []
    for h in headers:
        if h[1] == SHT_SYMTAB_SHNDX:
            xindex = list(struct.unpack_from(f"<{h[5] // 4}I", data, h[4]))
    for h in headers:
        if h[1] != SHT_SYMTAB:
            continue
        names = headers[h[6]]
        for k in range(h[5] // 24):
            st_name, st_info, _, st_shndx, _, _ = struct.unpack_from("<IBBHQQ", data, h[4] + k * 24)
            if st_shndx == SHN_XINDEX and k < len(xindex):
                st_shndx = xindex[k]
            sym = Symbol(cstr(names[4], st_name), st_info >> 4, st_info & 0xF, st_shndx)
            sym.comdat = st_shndx in comdat_sections
            obj.symbols.append(sym)
    return obj


def strong_definitions(obj: ObjectFile) -> set[str]:
    return {s.name for s in obj.symbols if s.bind == STB_GLOBAL and s.shndx not in (SHN_UNDEF,)}


def demangle(names: list[str]) -> dict[str, str]:
    if not names:
        return {}
    try:
        p = subprocess.run(["c++filt"], input="\n".join(names) + "\n", stdout=subprocess.PIPE, text=True,
                           timeout=60, check=True)
        out = p.stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        out = names
    return {n: (out[i] if i < len(out) and out[i] else n) for i, n in enumerate(names)}


# ---- the rules ------------------------------------------------------------------------------------------
# Sections a C++ compiler emits for ordinary functions and data (-ffunction-sections style suffixes and
# COMDAT names included). The default linker script places each of them into .text/.rodata/.data/.bss/.tdata.
_SECTION_OK = re.compile(
    r"^(?:"
    r"\.(?:text|rodata|data|bss|tdata|tbss|data\.rel\.ro|data\.rel|data\.rel\.local|data\.rel\.ro\.local|"
    r"gcc_except_table|lrodata|ldata|lbss)(?:\.[A-Za-z0-9_.$]+)?"
    r"|\.eh_frame|\.group|\.note\.GNU-stack|\.note\.gnu\.property|\.comment|\.symtab|\.strtab|\.shstrtab"
    r"|\.symtab_shndx|\.llvm_addrsig|\.debug_[a-z_]+|\.rela?\.debug_[a-z_]+"
    r")$")
_SECTION_RUNS = re.compile(r"^\.(?:init_array|fini_array|preinit_array|ctors|dtors|init|fini)(?:\.|$)")

# C-linkage functions and data an answer may call: what the reference answers need (`piece_policy.py
# --needs OBJECTS` lists it) and the generic runtime of C++ code -- memory, strings, math, printing.
_MATH = ("sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 exp10 log log2 log10 "
         "log1p logb pow sqrt cbrt hypot fabs floor ceil round lround llround trunc rint lrint llrint nearbyint "
         "fmod remainder remquo fmin fmax fdim fma erf erfc tgamma lgamma lgamma_r frexp ldexp scalbn scalbln modf "
         "copysign nextafter nexttoward ilogb sincos").split()
C_ALLOWED = frozenset(
    [m + s for m in _MATH for s in ("", "f", "l")]
    + [f"__{m}_finite" for m in _MATH] + [f"__{m}f_finite" for m in _MATH]
    + """_GLOBAL_OFFSET_TABLE_ _Unwind_Resume __gxx_personality_v0 __dso_handle __libc_single_threaded
      __tls_get_addr __stack_chk_fail __assert_fail
      __cxa_allocate_exception __cxa_free_exception __cxa_throw __cxa_begin_catch __cxa_end_catch __cxa_rethrow
      __cxa_guard_acquire __cxa_guard_release __cxa_guard_abort __cxa_pure_virtual __cxa_deleted_virtual
      __cxa_atexit __cxa_thread_atexit __cxa_get_exception_ptr __cxa_current_exception_type __cxa_bad_cast
      __cxa_bad_typeid __cxa_throw_bad_array_new_length __cxa_call_unexpected __cxa_call_terminate
      memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strchr strrchr strstr strcpy strncpy
      strtod strtof strtold strtol strtoll strtoul strtoull
      malloc calloc realloc free aligned_alloc posix_memalign
      printf puts putchar fputs fputc fwrite fflush snprintf vsnprintf sprintf vsprintf fprintf vfprintf stdout
      stderr __printf_chk __fprintf_chk __sprintf_chk __snprintf_chk __vsnprintf_chk __memcpy_chk __memmove_chk
      __memset_chk __strcpy_chk
      pthread_mutex_lock pthread_mutex_unlock pthread_mutex_trylock pthread_once pthread_self sched_yield
      nanosleep qsort bsearch rand srand""".split())

# Calls refused in every answer, whatever its C++ spelling (matched on the demangled name).
_DENY_ANY = [
    (re.compile(r"\bstd::(?:__cxx11::)?basic_(?:i|o)?fstream\b|\bstd::(?:__cxx11::)?basic_filebuf\b"),
     "file streams (std::ifstream/std::ofstream): an answer reads and writes no files"),
    (re.compile(r"\bstd::(?:__cxx11::)?filesystem::|\bstd::experimental::filesystem"),
     "std::filesystem: an answer reads and writes no files"),
    (re.compile(r"\bstd::(?:system|getenv|quick_exit|exit|_Exit|abort)\b"), "leaving the process or reading the environment"),
    (re.compile(r"\bkindling::(?:\w+::)*(?:save|load|load_metadata|save_checkpoint|load_checkpoint|write_csv|"
                r"write_jsonl|load_cache|save_cache|read_idx|load_image|save_png|save_npy|load_npy|"
                r"check_regular_file|write_file_atomically)\(|\bkindling::(?:\w+::)*(?:AtomicWriter|FashionMNIST)\b"),
     "kindling's file input and output: an answer reads and writes no files"),
]
_C_DENIED_WHY = {
    **dict.fromkeys("exit _exit _Exit quick_exit abort atexit at_quick_exit on_exit".split(),
                    "ends the process or registers code to run at its end"),
    **dict.fromkeys("getenv secure_getenv setenv putenv unsetenv clearenv environ __environ".split(),
                    "reads or changes the environment"),
    **dict.fromkeys("open open64 openat openat64 creat fopen fopen64 freopen fdopen opendir unlink unlinkat remove "
                    "rename renameat mkdir rmdir chdir symlink link truncate read write pread pwrite lseek dup "
                    "dup2 dup3 fcntl ioctl stat lstat fstat access".split(), "opens, reads or writes files"),
    **dict.fromkeys("fork vfork clone clone3 execve execv execvp execl execlp execle execvpe fexecve posix_spawn "
                    "posix_spawnp system popen daemon setsid kill tgkill ptrace prctl chroot setrlimit".split(),
                    "starts or controls processes"),
    **dict.fromkeys("dlopen dlsym dlvsym dlmopen dl_iterate_phdr".split(), "loads or looks up code at run time"),
    **dict.fromkeys("syscall socket connect bind listen accept sendto recvfrom sendmsg recvmsg".split(),
                    "system calls and the network"),
    **dict.fromkeys("mmap mmap64 mprotect mremap memfd_create shm_open process_vm_readv process_vm_writev".split(),
                    "maps or changes memory"),
    **dict.fromkeys("signal sigaction __sysv_signal bsd_signal sigaltstack alarm setitimer timer_create raise".split(),
                    "installs signal handlers or sends signals"),
}

# Per piece: the library routines that would do the piece's job (issue 26, class 6). A piece written as a
# call to them earns nothing; matched on the demangled names of its undefined symbols.
_T = r"kindling::(?:Tensor::)?"
_ELEMENTWISE = _T + r"(?:copy_|add_|sub_|mul_|div_|zero_|fill_|clone|contiguous|to|cpu|add|sub|mul|div|where|cat|stack|" \
    r"copy|index_select|gather|scatter_?|masked_fill_?|clamp_?|neg|abs|operator[-+*/]=?)\("
PIECE_DENY: dict[str, list[str]] = {
    "ch01.ex1": [_T + r"(?:contiguous|clone|reshape|view|flatten)\(", r"kindling::detail::(?:make_tensor|make_view)\("],
    "ch01.ex2": [_T + r"(?:permute|select|transpose|t|movedim|narrow|slice|operator\[\]|squeeze|unsqueeze|as_strided|"
                 r"contiguous|clone)\("],
    "ch01.ex3": [_T + r"(?:expand|expand_as|broadcast_to|broadcast_tensors|as_strided)\(",
                 r"kindling::detail::broadcast_byte_strides\("],
    "ch01.ex4": [_ELEMENTWISE, r"kindling::detail::copy_into\("],
    "ch01.ex5": [_T + r"(?:softmax|log_softmax|logsumexp|exp|sum|max|amax)\(", r"kindling::nn::functional::",
                 r"kindling::train::"],
    "ch01.ex6": [_T + r"(?:sum|mean|matmul|mm|logsumexp|norm|var|std|cumsum|einsum)\("],
    "ch02.ex2": [r"kindling::autograd::(?:detail::)?(?:sum_to|unbroadcast)\b"],
    "ch02.ex5": [r"kindling::autograd::(?:\w+::)*(?:gradcheck|gradgradcheck)\("],
    "ch03.ex1": [r"kindling::(?:nn::functional::)?linear\(", r"kindling::nn::detail::linear_forward\("],
    "ch03.ex3": [r"kindling::(?:nn::functional::)?dropout\(", r"kindling::nn::Dropout\b"],
    "ch04.ex1": [_T + r"(?:randperm|argsort|sort|shuffle)\(", r"std::shuffle\b"],
    "ch04.ex2": [_T + r"(?:stack|cat|concatenate)\("],
    "ch04.ex3": [r"kindling::data::transforms::(?:ToTensor|Normalize|RandomHorizontalFlip)\b", _T + r"flip\("],
    "ch05.ex1": [r"kindling::optim::SGD::step\(", r"kindling::optim::detail::adam_step\("],
    "ch05.ex2": [r"kindling::optim::Adam(?:W)?::step\(", r"kindling::optim::detail::sgd_step\("],
    "ch05.ex4": [r"kindling::train::(?:\w+::)*accuracy\("],
    "ch06.ex1": [r"kindling::amp::GradScaler::(?:unscale_|step)\("],
    "ch06.ex2": [r"kindling::amp::GradScaler::update\("],
    "ch07.ex1": [r"kindling::nn::utils::clip_grad_norm_\("],
    "ch08.ex1": [r"kindling::cuda::(?:emulated|gpu)::", _ELEMENTWISE],
    "ch08.ex2": [r"kindling::cuda::(?:emulated|gpu)::", _T + r"(?:sum|mean)\("],
    "ch08.ex3": [r"kindling::cuda::(?:emulated|gpu)::", _T + r"(?:matmul|mm|bmm|addmm)\("],
    "ch08.ex4": [r"kindling::cuda::(?:emulated|gpu)::", _T + r"(?:softmax|log_softmax)\("],
    "ch08.ex5": [_T + r"(?:to|cpu|clone|copy_)\("],
    "ch09.ex1": [r"kindling::vision::models::(?:Bottleneck|ResNet)::forward\("],
    "ch09.ex2": [r"kindling::vision::models::(?:BasicBlock|ResNet)::forward\("],
    "ch09.ex3": [r"kindling::vision::models::load_pretrained\(", r"kindling::nn::Module::load_state_dict\("],
    "ch09.ex4": [r"kindling::vision::models::fine_tuning_(?:groups|sgd)\("],
    "ch11.ex1": [r"kindling::distributed::DistributedSampler::"],
    "ch11.ex2": [r"kindling::distributed::compute_bucket_assignment_by_size\("],
    "ch11.ex3": [r"kindling::distributed::DistributedDataParallel::"],
    "ch11.ex4": [r"kindling::distributed::(?:all_reduce|reduce_scatter\w*|all_gather\w*|broadcast|"
                 r"simulate_ring_all_reduce)\("],
    "ch12.ex1": [r"kindling::nn::functional::scaled_dot_product_attention\(", r"kindling::text::CausalSelfAttention::"],
    "ch12.ex2": [r"kindling::nn::functional::(?:scaled_dot_product_attention|multi_head_attention_forward)\(",
                 r"kindling::nn::MultiheadAttention::"],
    "ch12.ex3": [r"kindling::text::CausalSelfAttention::"],
    "ch12.ex4": [r"kindling::text::ByteBPE::(?:train|encode)\("],
    "ch12.ex5": [r"kindling::text::generate\("],
}
# Strong definitions a piece may add to its stub's: chapter 8's kernels, which the reference defines next to
# their launch (the stub has only the launch; a kernel is called by its own launch only).
PIECE_EXTRA_DEFS: dict[str, str] = {
    "ch08.ex1": r"^kindling::cuda::\w+::binary_strided\(",
    "ch08.ex2": r"^kindling::cuda::\w+::sum_shared_tree\(",
    "ch08.ex3": r"^kindling::cuda::\w+::matmul_tiled\(",
    "ch08.ex4": r"^kindling::cuda::\w+::softmax_kernel\(",
}
# The find-the-bug pieces of chapter 7 must not call each other (each is a whole training run).
for _k in range(2, 10):
    PIECE_DENY[f"ch07.ex{_k}"] = [r"kindling::debug::find_the_bug::(?:train_\w+|evaluate|validate)\("]


@dataclass
class Violation:
    rule: str
    why: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.why}"


def _namespace(mangled: str) -> str:
    """The outermost scope of a C++ symbol: 'kindling', 'std', '__cxxabiv1', '::' (global), 'operator new',
    or '?' when the mangling is not understood (then refused)."""
    s = mangled[2:]
    while s[:2] in ("TV", "TI", "TS", "TT", "TH", "TW", "GV", "GR"):
        s = s[2:]
    if s.startswith("Z"):  # a local entity: the enclosing function's name follows
        s = s[1:]
    nested = s.startswith("N")
    if nested:
        s = s[1:].lstrip("rVKRO")
    if s.startswith("St") or s[:2] in ("Sa", "Sb", "Ss", "Si", "So", "Sd"):
        return "std"
    if not nested and s[:2] in ("nw", "na", "dl", "da"):
        return "operator new"
    m = re.match(r"(\d+)", s)
    if not m:
        return "?"
    if not nested:
        return "::"
    n = int(m.group(1))
    return s[len(m.group(1)):len(m.group(1)) + n]


_CXX_NAMESPACES = {"kindling", "std", "__gnu_cxx", "__cxxabiv1", "operator new"}


def check_object(path: str, piece: str, piece_symbols: set[str] | None) -> list[Violation]:
    """The object-file rules for one compiled answer file of exercise `piece` ("ch01.ex4"). piece_symbols:
    the strong global symbols its pristine stub defines (None: not known, the rule is skipped)."""
    obj = read_object(path)
    out: list[Violation] = []
    for name, typ, flags in obj.sections:
        if not name:
            continue
        if name.startswith((".rela.", ".rel.")) and _SECTION_RUNS.match(name[name.index(".", 1):]):
            continue  # the relocations of a section refused below
        if typ in (SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY) or _SECTION_RUNS.match(name):
            out.append(Violation("sections", f"section {name}: code that runs by itself before main or at exit "
                                             f"(a static constructor or destructor, __attribute__((constructor))); "
                                             f"initialise inside the function that needs it (a function-local static)"))
        elif name.startswith(".rela") and _SECTION_OK.match(name[5:] if name.startswith(".rela.") else name[4:]) \
                or name.startswith(".rel.") and _SECTION_OK.match(name[4:]):
            continue
        elif not _SECTION_OK.match(name):
            out.append(Violation("sections", f"section {name!r} is not one a C++ compiler makes for ordinary code "
                                             f"(__attribute__((section(...))) is not allowed in an answer)"))
        elif name == ".note.GNU-stack" and flags & SHF_EXECINSTR:
            out.append(Violation("sections", "asks for an executable stack"))
    undefined: list[str] = []
    foreign: list[Symbol] = []
    weak_bad: list[str] = []
    for s in obj.symbols:
        if s.type == STT_GNU_IFUNC:
            out.append(Violation("definitions", f"{s.name} is a GNU ifunc: its resolver would run while the program "
                                                f"loads, before main"))
            continue
        if s.bind == STB_LOCAL or s.type in (STT_SECTION, STT_FILE) or not s.name:
            continue
        if s.shndx == SHN_UNDEF:
            undefined.append(s.name)
        elif s.shndx == SHN_COMMON or s.type == STT_COMMON:
            out.append(Violation("definitions", f"{s.name}: a global variable shared with the rest of the program "
                                                f"(make it static, or put it in an anonymous namespace)"))
        elif s.bind == STB_GLOBAL:
            if piece_symbols is not None and s.name not in piece_symbols:
                foreign.append(s)  # reported below with its demangled name
        else:  # weak or unique
            if not (s.comdat and (s.name.startswith("_Z") or s.name == "DW.ref.__gxx_personality_v0")):
                weak_bad.append(s.name)
    names = demangle(undefined + [s.name for s in foreign] + weak_bad)
    for w in weak_bad:
        out.append(Violation("definitions", f"{names[w]}: a weak definition the compiler did not make for a "
                                                    f"template or an inline function (__attribute__((weak)), "
                                                    f"#pragma weak): it could stand in for a library function"))
    extra = re.compile(PIECE_EXTRA_DEFS[piece]) if piece in PIECE_EXTRA_DEFS else None
    for s in foreign:
        if extra and extra.search(names[s.name]):
            continue
        out.append(Violation("definitions", f"defines {names[s.name]}, which is not part of {piece}: an answer file "
                                            f"defines its piece's functions only; helpers go in an anonymous namespace "
                                            f"(or are static), and library functions cannot be replaced"))
    deny = [(re.compile(p), "does the piece's job for it (write the piece itself)") for p in PIECE_DENY.get(piece, [])]
    for u in undefined:
        d = names[u]
        if not u.startswith("_Z"):
            if u in _C_DENIED_WHY:
                out.append(Violation("calls", f"calls {u}(): {_C_DENIED_WHY[u]}; an answer may not"))
            elif u not in C_ALLOWED:
                out.append(Violation("calls", f"uses {u}, which is not among the C functions an answer may call "
                                              f"(memory, strings, math, printing; scripts/piece_policy.py)"))
            continue
        ns = _namespace(u)
        if ns not in _CXX_NAMESPACES:
            out.append(Violation("calls", f"uses {d}: an answer may call kindling and the C++ standard library only"))
            continue
        for rx, why in _DENY_ANY + deny:
            if rx.search(d):
                out.append(Violation("calls", f"calls {d}: {why}" if why.startswith("does") else
                                     f"calls {d}: {why}"))
                break
    return out


# ---- the source and its preprocessed text --------------------------------------------------------------
_INCLUDE = re.compile(r'^\s*#\s*(include|include_next|import|embed)\s*([<"])([^>"]*)[>"]', re.M)
_HAS_INCLUDE = re.compile(r"__has_include(?:_next)?\b|\b__has_embed\b")
# Which compiler reads the file: chapter 8's kernels are compiled by nvcc too (lib/src/cuda/gpu/kernels.cu
# includes the answer), outside the sandbox, and the preprocessed text checked here is g++'s. An answer
# that branched on the compiler could show g++ one text and nvcc another, so it may not ask.
_COMPILER_ID = re.compile(r"\b(?:__CUDACC\w*|__NVCC__|__CUDA_ARCH\w*|__NVCOMPILER\w*|__clang\w*|__GNUC\w*|__GNUG__|"
                          r"__INTEL\w*|_MSC_VER|__EDG\w*)\b")
_PRAGMA_OK = re.compile(r"^(?:once|GCC diagnostic\b|GCC unroll\b|GCC ivdep\b|unroll\b|omp simd\b|clang loop\b)")
_ASM = re.compile(r"(?<![\w$])(?:asm|__asm|__asm__)(?![\w$])|\.incbin\b")
_NS_STD = re.compile(r"\bnamespace\s+(?:std|__gnu_cxx|__cxxabiv1)\b")


def _strip_comments_and_strings(text: str) -> str:
    """C++ text without comments and string/char literals (so that a word in a comment is not a finding);
    raw strings R"x(...)x" included."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\\s]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            i = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""')
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def check_source(path: str, chapter_dir: str) -> list[Violation]:
    """The raw text of the answer file and of the headers it includes from its own chapter folder."""
    out: list[Violation] = []
    seen: set[str] = set()
    todo = [path]
    chapter_dir = os.path.abspath(chapter_dir)
    if os.path.islink(chapter_dir) or os.path.islink(os.path.dirname(chapter_dir)):
        return [Violation("sources", f"{chapter_dir} is a symbolic link: the chapter folder must be a real folder")]
    while todo:
        f = os.path.abspath(todo.pop())
        if f in seen:
            continue
        seen.add(f)
        rel = os.path.relpath(f, os.path.dirname(chapter_dir))
        if os.path.islink(f):
            out.append(Violation("sources", f"{rel} is a symbolic link (to {os.readlink(f)}): answer files are regular files"))
            continue
        try:
            with open(f, "rb") as fh:
                raw = fh.read(4 << 20)
        except OSError as e:
            out.append(Violation("sources", f"{rel} cannot be read: {e.strerror}"))
            continue
        text = raw.decode("utf-8", errors="replace")
        # Line continuations would let `#\\\ninclude` or `__has_\\\ninclude` hide a directive from a regex.
        text = text.replace("\\\r\n", "").replace("\\\n", "")
        code = _strip_comments_and_strings_keep_includes(text)
        if _HAS_INCLUDE.search(code):
            out.append(Violation("sources", f"{rel} uses __has_include: an answer knows which headers it needs (and "
                                            f"may not probe the grading machine's files)"))
        m = _COMPILER_ID.search(code)
        if m:
            out.append(Violation("sources", f"{rel} tests which compiler reads it ({m.group(0)}): an answer is the "
                                            f"same code for every compiler (nvcc compiles chapter 8's kernels from "
                                            f"the text g++ checked)"))
        m = _ASM.search(_strip_comments_and_strings(code))
        if m:
            out.append(Violation("sources", f"{rel}: inline assembly ({m.group(0)}) in the answer's text: it can "
                                            f"embed any file the compiler reads (.incbin)"))
        for m in _INCLUDE.finditer(code):
            kind, delim, name = m.group(1), m.group(2), m.group(3).strip()
            if kind != "include":
                out.append(Violation("sources", f"{rel}: #{kind} is not allowed in an answer (use #include)"))
                continue
            if name.startswith("/") or ".." in name.replace("\\", "/").split("/") or "\\" in name:
                out.append(Violation("sources", f"{rel}: #include {delim}{name}{'>' if delim == '<' else delim} names "
                                                f"a file by a path outside the answer's folder: include kindling's "
                                                f"headers as <kindling/...> and the layer's as \"tensor/pieces.hpp\""))
                continue
            if delim == '"':
                local = os.path.join(os.path.dirname(f), name)
                if os.path.lexists(local):
                    todo.append(local)
        if re.search(r"^\s*#\s*(?:line\b|\d)", code, re.M):
            pass  # #line is harmless here: the grader never trusts file names from the program (cheats/line)
    return out


def _strip_comments_and_strings_keep_includes(text: str) -> str:
    """Comments out, string literals out -- except the header name of an #include line, which is kept."""
    lines = text.split("\n")
    keep = {i: l for i, l in enumerate(lines) if re.match(r'^\s*#\s*(?:include|include_next|import|embed)\b', l)}
    stripped = _strip_comments_and_strings(text).split("\n")
    if len(stripped) == len(lines):
        for i, l in keep.items():
            stripped[i] = re.sub(r"//.*$|/\*.*?\*/", "", l)
    return "\n".join(stripped)


_MARKER = re.compile(r'^#\s+(\d+)\s+"((?:[^"\\]|\\.)*)"((?:\s+\d)*)\s*$')


def check_preprocessed(text: str, allowed_roots: list[str], learner_dir: str) -> list[Violation]:
    """The compiler's -E output: which files it read, and what the learner's own lines hold."""
    out: list[Violation] = []
    learner_dir = os.path.realpath(learner_dir)
    roots = [os.path.realpath(r) for r in allowed_roots]
    current, learner = "", False
    reported: set[str] = set()
    mine: list[str] = []
    for line in text.split("\n"):
        if line.startswith("#"):
            m = _MARKER.match(line)
            if m:
                name = m.group(2).encode().decode("unicode_escape", errors="replace")
                current = name
                if name.startswith("<") and name.endswith(">"):   # <built-in>, <command-line>
                    learner = False
                    continue
                real = os.path.realpath(name)
                learner = real == learner_dir or real.startswith(learner_dir + os.sep)
                if not learner and not any(real == r or real.startswith(r + os.sep) for r in roots) \
                        and real not in reported:
                    reported.add(real)
                    out.append(Violation("preprocessed", f"the compile read {name}, which is outside the system, "
                                                         f"kindling's headers and the answer's own folder"))
                continue
            if learner:
                directive = line[1:].strip()
                if directive.startswith("pragma"):
                    body = directive[len("pragma"):].strip()
                    if not _PRAGMA_OK.match(body):
                        out.append(Violation("preprocessed", f"#pragma {body[:60]} in {os.path.basename(current)} "
                                                             f"(pragmas other than diagnostics and loop hints are "
                                                             f"not allowed in an answer: #pragma weak and "
                                                             f"redefine_extname rename symbols)"))
                continue
        if learner:
            mine.append(line)
    code = _strip_comments_and_strings("\n".join(mine))
    m = _ASM.search(code)
    if m:
        out.append(Violation("preprocessed", f"inline assembly ({m.group(0)}) in the answer: it can embed any file "
                                             f"the compiler reads (.incbin) or define symbols behind the compiler's back"))
    m = _NS_STD.search(code)
    if m:
        out.append(Violation("preprocessed", f"{m.group(0)}: an answer does not add to the C++ runtime's namespaces"))
    return out


def main(argv: list[str]) -> int:
    """--needs OBJECT...: the C-linkage symbols these objects need that are not in the allowlist (to extend
    C_ALLOWED when a reference answer needs something new). --check PIECE OBJECT [STUB_OBJECT]: the rules."""
    if argv[:1] == ["--needs"]:
        need = set()
        for o in argv[1:]:
            need |= {s.name for s in read_object(o).symbols if s.shndx == SHN_UNDEF and s.name and
                     not s.name.startswith("_Z") and s.bind != STB_LOCAL}
        for n in sorted(need - C_ALLOWED):
            print(n)
        return 0
    if argv[:1] == ["--check"] and len(argv) in (3, 4):
        stub = strong_definitions(read_object(argv[3])) if len(argv) == 4 else None
        v = check_object(argv[2], argv[1], stub)
        for x in v:
            print(x)
        return 1 if v else 0
    print(main.__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
