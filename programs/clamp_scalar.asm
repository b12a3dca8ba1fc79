; Clamp a tile to [lo, hi] with lo and hi read from UB by the scalar unit: a port of the CANN
; asc-devkit sample "clamp" (examples/03_libraries/00_math/clamp/clamp.asc), ClampByMinMax<float> with
; dataSize = count = 128 and scalarType = 4 (both bounds scalars):
;     CopyIn:  DataCopy src, min tensor, max tensor            -> 3 x DMA.GM2UB
;     Compute: Duplicate(dst, 0, 128)                          -> VDUP.f32
;              SetFlag/WaitFlag<MTE2_S>                        -> SETFLAG/WAITFLAG MTE2, S
;              minValue = minLocal.GetValue(0), maxValue = ... -> LD.u32 from UB
;              SetFlag/WaitFlag<S_V>                           -> SETFLAG/WAITFLAG S, V
;              Clamp(dst, src, minValue, maxValue, 128)        -> VMAXS.f32 with lo, VMINS.f32 with hi
;     CopyOut: DataCopy dst                                    -> DMA.UB2GM
; The LD reads bytes a DMA wrote, so it must wait for MTE2: without the MTE2 -> S flag it would read
; them at its own time, before the DMA lands (a race; lo would be 0).
; A scalar register as a SCALAR operand is its low bits reinterpreted as T: the f32 bits of lo
; (0xc0200000) work whether LD.u32 zero-extends them (S1) or LD.s32 sign-extends them (S3).
;
; Second version, compare and select (the ClampMin / ClampMax pattern): t = x >= lo ? x : lo, then
; dst2 = t <= hi ? t : hi. It differs on NaN: VMAXS/VMINS keep NaN (element 0), while a compare with
; NaN is false, so the select replaces it by lo. Elements: nan, inf, -inf, -0 (kept by both), lo, hi,
; the f32 next to lo and hi, then the ramp -7, -6.875, ..., 7.875.
.equ GSRC, 0x0000         ; GM: 128 f32
.equ GMIN, 0x0200         ; GM: min tensor, element 0 = lo = -2.5
.equ GMAX, 0x0400         ; GM: max tensor, element 0 = hi = 3.0
.equ GDST, 0x1000         ; GM: dst, then dst2 at + 0x200
.equ SRC,  0x0000         ; UB
.equ MINT, 0x0200
.equ MAXT, 0x0400
.equ M1,   0x0800         ; x >= lo bits: 2 iterations x 8 bytes
.equ M2,   0x0820         ; t <= hi bits
.equ DST,  0x1000
.equ T,    0x1400
.equ DST2, 0x1800
.gm GSRC + 0x0, f32, nan, inf, -inf, -0.0, -2.5, 3.0, -2.500000238418579, 3.000000238418579, -7.0, -6.875, -6.75, -6.625, -6.5, -6.375, -6.25, -6.125
.gm GSRC + 0x40, f32, -6.0, -5.875, -5.75, -5.625, -5.5, -5.375, -5.25, -5.125, -5.0, -4.875, -4.75, -4.625, -4.5, -4.375, -4.25, -4.125
.gm GSRC + 0x80, f32, -4.0, -3.875, -3.75, -3.625, -3.5, -3.375, -3.25, -3.125, -3.0, -2.875, -2.75, -2.625, -2.5, -2.375, -2.25, -2.125
.gm GSRC + 0xc0, f32, -2.0, -1.875, -1.75, -1.625, -1.5, -1.375, -1.25, -1.125, -1.0, -0.875, -0.75, -0.625, -0.5, -0.375, -0.25, -0.125
.gm GSRC + 0x100, f32, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75, 1.875
.gm GSRC + 0x140, f32, 2.0, 2.125, 2.25, 2.375, 2.5, 2.625, 2.75, 2.875, 3.0, 3.125, 3.25, 3.375, 3.5, 3.625, 3.75, 3.875
.gm GSRC + 0x180, f32, 4.0, 4.125, 4.25, 4.375, 4.5, 4.625, 4.75, 4.875, 5.0, 5.125, 5.25, 5.375, 5.5, 5.625, 5.75, 5.875
.gm GSRC + 0x1c0, f32, 6.0, 6.125, 6.25, 6.375, 6.5, 6.625, 6.75, 6.875, 7.0, 7.125, 7.25, 7.375, 7.5, 7.625, 7.75, 7.875
.gm GMIN, f32, -2.5
.gmfill GMIN + 4, f32, 127, 100.0      ; only element 0 is used
.gm GMAX, f32, 3.0
.gmfill GMAX + 4, f32, 127, -100.0

    DMA.GM2UB [SRC], gm[GSRC], len=16
    DMA.GM2UB [MINT], gm[GMIN], len=16
    DMA.GM2UB [MAXT], gm[GMAX], len=16
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VDUP.f32 [DST], 0.0, count=128
    SETFLAG MTE2, S, 0                  ; the bounds are in UB once MTE2 is done
    WAITFLAG MTE2, S, 0
    LD.u32 S1, [MINT]                   ; lo, zero-extended: 0x00000000_c0200000
    LD.u32 S2, [MAXT]                   ; hi: 0x40400000
    LD.s32 S3, [MINT]                   ; lo, sign-extended: 0xffffffff_c0200000
    SETFLAG S, V, 0
    WAITFLAG S, V, 0
    VMAXS.f32 [DST], [SRC], S1, count=128
    VMINS.f32 [DST], [DST], S2, count=128
    VCMPS.GE.f32 [M1], [SRC], S3, count=128
    VSELS.f32 [T], [SRC], S3, [M1], count=128
    VCMPS.LE.f32 [M2], [T], S2, count=128
    VSELS.f32 [DST2], [T], S2, [M2], count=128
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[GDST], [DST], len=16
    DMA.UB2GM gm[GDST + 0x200], [DST2], len=16
    HALT

; EXPECT S1 = 3223322624
; EXPECT S2 = 1077936128
; EXPECT S3 = -1071644672
; VMAXS / VMINS: nan stays nan, inf -> hi, -inf -> lo, -0 stays -0
; EXPECT gm:0x1000:f32:64 = nan 3.0 -2.5 -0.0 -2.5 3.0 -2.5 3.0 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.375 -2.25 -2.125 -2.0 -1.875 -1.75 -1.625 -1.5 -1.375 -1.25 -1.125 -1.0 -0.875 -0.75 -0.625 -0.5 -0.375 -0.25 -0.125
; EXPECT gm:0x1100:f32:64 = 0.0 0.125 0.25 0.375 0.5 0.625 0.75 0.875 1.0 1.125 1.25 1.375 1.5 1.625 1.75 1.875 2.0 2.125 2.25 2.375 2.5 2.625 2.75 2.875 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0
; compare and select: nan -> lo
; EXPECT gm:0x1200:f32:64 = -2.5 3.0 -2.5 -0.0 -2.5 3.0 -2.5 3.0 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.5 -2.375 -2.25 -2.125 -2.0 -1.875 -1.75 -1.625 -1.5 -1.375 -1.25 -1.125 -1.0 -0.875 -0.75 -0.625 -0.5 -0.375 -0.25 -0.125
; EXPECT gm:0x1300:f32:64 = 0.0 0.125 0.25 0.375 0.5 0.625 0.75 0.875 1.0 1.125 1.25 1.375 1.5 1.625 1.75 1.875 2.0 2.125 2.25 2.375 2.5 2.625 2.75 2.875 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0 3.0
