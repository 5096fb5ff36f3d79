//! Run-time CPU feature detection without std: CPUID for AVX2/FMA/F16C/BMI2 (and AVX-512
//! F/BW/VL/DQ/VBMI), XGETBV for the OS's support of the AVX (and AVX-512) register state; each
//! answer is computed once and cached in an atomic.

use core::sync::atomic::{AtomicU8, Ordering};

const UNKNOWN: u8 = 0;
const NO: u8 = 1;
const YES: u8 = 2;

static AVX2: AtomicU8 = AtomicU8::new(UNKNOWN);
static AVX512: AtomicU8 = AtomicU8::new(UNKNOWN);
static SUBNORMALS_FREE: AtomicU8 = AtomicU8::new(UNKNOWN);
static AVX512_HALVES: AtomicU8 = AtomicU8::new(UNKNOWN);

/// The cached answer of `detect`, computing it on first use.
fn cached(slot: &AtomicU8, detect: fn() -> bool) -> bool {
    match slot.load(Ordering::Relaxed) {
        YES => true,
        NO => false,
        _ => {
            let found = detect();
            slot.store(if found { YES } else { NO }, Ordering::Relaxed);
            found
        }
    }
}

/// Whether the AVX2 tier can run: the CPU has AVX2, FMA, F16C and BMI2, and the OS saves the
/// YMM state.
pub fn has_avx2() -> bool {
    cached(&AVX2, detect_avx2)
}

/// Whether the AVX-512 tier can run: everything the AVX2 tier needs (its kernels are the
/// AVX-512 tier's fallback), plus AVX-512 F, BW, VL, DQ and VBMI, and the OS saves the opmask
/// and ZMM state.
pub fn has_avx512() -> bool {
    // detect_avx512 relies on what detect_avx2 checked first (leaf 7 exists, OSXSAVE).
    cached(&AVX512, || has_avx2() && detect_avx512())
}

/// Whether the CPU is one whose float units take f32 subnormal operands at full speed, where
/// a kernel may feed them (an AMD Zen 5, family 0x1a, or later: measured there; Intel cores
/// take a microcode assist on subnormal multiply operands, and others are not measured, so
/// they keep the kernels that never make one).
pub fn subnormal_operands_free() -> bool {
    cached(&SUBNORMALS_FREE, || amd_family().is_some_and(|f| f >= 0x1a))
}

/// Whether the CPU runs 512-bit operations as two 256-bit halves, so that some AVX-512
/// kernels lose to the AVX2 tier's (an AMD Zen 4, family 0x19, the one such core with
/// AVX-512: measured there).
pub fn avx512_in_halves() -> bool {
    cached(&AVX512_HALVES, || amd_family() == Some(0x19))
}

/// The CPU family of an AMD CPU (the base family, plus the extended family where the base is
/// 0xf), or `None` for any other vendor.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[allow(unused_unsafe)]
fn amd_family() -> Option<u32> {
    use core::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86_64 CPU; leaf 0 gives the vendor string.
    let l0 = unsafe { __cpuid(0) };
    // "AuthenticAMD" in EBX, EDX, ECX.
    let amd = (l0.ebx, l0.edx, l0.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
    if !amd || l0.eax < 1 {
        return None;
    }
    // SAFETY: leaf 1 exists (leaf 0 reports at least 1).
    let eax = unsafe { __cpuid(1) }.eax;
    let base = (eax >> 8) & 0xf;
    Some(if base == 0xf { base + ((eax >> 20) & 0xff) } else { base })
}

/// No x86_64, or miri: nothing to detect (no AVX2 kernel runs).
#[cfg(any(not(target_arch = "x86_64"), miri))]
fn amd_family() -> Option<u32> {
    None
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
#[allow(unused_unsafe)] // `__cpuid` became a safe fn after the MSRV; keep both compiling
fn detect_avx2() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: CPUID exists on every x86_64 CPU; leaf 0 reports the highest leaf.
    let max_leaf = unsafe { __cpuid(0) }.eax;
    if max_leaf < 7 {
        return false;
    }
    // SAFETY: leaf 1 exists (max_leaf >= 7).
    let l1 = unsafe { __cpuid(1) };
    // SAFETY: leaf 7 exists (checked above).
    let l7 = unsafe { __cpuid_count(7, 0) };
    let fma = l1.ecx & (1 << 12) != 0;
    let osxsave = l1.ecx & (1 << 27) != 0;
    let avx = l1.ecx & (1 << 28) != 0;
    let f16c = l1.ecx & (1 << 29) != 0;
    let avx2 = l7.ebx & (1 << 5) != 0;
    let bmi2 = l7.ebx & (1 << 8) != 0;
    if !(osxsave && avx) {
        return false;
    }
    // XCR0 bits 1 (SSE) and 2 (AVX): the OS saves and restores the YMM registers.
    // SAFETY: OSXSAVE is set, so XGETBV is enabled.
    let xcr0 = unsafe { xgetbv0() };
    xcr0 & 0b110 == 0b110 && avx2 && fma && f16c && bmi2
}

/// AVX-512 F, BW, VL, DQ, VBMI and the opmask/ZMM state; called only once [`detect_avx2`]
/// has found CPUID leaf 7 and OSXSAVE.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[allow(unused_unsafe)]
fn detect_avx512() -> bool {
    use core::arch::x86_64::__cpuid_count;
    // SAFETY: leaf 7 exists (detect_avx2 checked the highest leaf before this runs).
    let l7 = unsafe { __cpuid_count(7, 0) };
    let f = l7.ebx & (1 << 16) != 0;
    let bw = l7.ebx & (1 << 30) != 0;
    let vl = l7.ebx & (1 << 31) != 0;
    let dq = l7.ebx & (1 << 17) != 0;
    let vbmi = l7.ecx & (1 << 1) != 0;
    if !(f && bw && vl && dq && vbmi) {
        return false;
    }
    // XCR0 bits 1, 2 (SSE, AVX) and 5, 6, 7 (opmask, upper halves of ZMM0-15, ZMM16-31).
    // SAFETY: detect_avx2 found OSXSAVE set, so XGETBV is enabled.
    let xcr0 = unsafe { xgetbv0() };
    xcr0 & 0b1110_0110 == 0b1110_0110
}

/// XGETBV with ECX = 0.
///
/// # Safety
/// CPUID must report OSXSAVE.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "xsave")]
unsafe fn xgetbv0() -> u64 {
    // SAFETY: the caller checked OSXSAVE, which is what XGETBV needs.
    unsafe { core::arch::x86_64::_xgetbv(0) }
}

/// Without x86_64, or under miri (which runs neither CPUID nor AVX2 code): no AVX2, so
/// miri checks the scalar and portable paths.
#[cfg(any(not(target_arch = "x86_64"), miri))]
fn detect_avx2() -> bool {
    false
}

/// As [`detect_avx2`]: no AVX-512 without x86_64 or under miri.
#[cfg(any(not(target_arch = "x86_64"), miri))]
fn detect_avx512() -> bool {
    false
}
