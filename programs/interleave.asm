; Register interleave (950): the rotary-embedding step on interleaved pairs. x holds the pairs
; (x0, x1), (x2, x3), ...; rotate_half turns each pair (a, b) into (-b, a), and the embedding is
; x * cos + rotate_half(x) * sin. VDINTLV splits 128 f32 elements (two registers) into the even ones
; (a) and the odd ones (b); VINTLV puts (-b, a) back in pair order. VUNPACK and VPACK are shown too:
; s8 bytes widened to s16 lanes (sign-extended) and narrowed back (the low byte of each lane).
;   x = 1, 2, ..., 128; cos = 0.5, sin = 0.25, so for pair k:
;   out[2k] = 0.5 * x[2k] - 0.25 * x[2k+1] = 0.5 k,  out[2k+1] = 0.5 * x[2k+1] + 0.25 * x[2k] = 1.5 k + 1.25
.equ OUT,  0x200
.equ BYTES, 0x400
.equ WIDE, 0x500
.ub BYTES, s8, -3, 100, -128, 127
    MOV S2, OUT
    MOV S3, BYTES
    MOV S4, WIDE
    VF.BEGIN
    PSET.b32 P0, ALL
    VARANGE.f32 V0, 1.0               ; x[0..63]
    VARANGE.f32 V1, 65.0              ; x[64..127]
    VDINTLV.f32 V2, V3, V0, V1        ; V2 = a: x[0], x[2], ...; V3 = b: x[1], x[3], ...
    VNEG.f32 V4, V3, P0               ; -b
    VINTLV.f32 V4, V5, V4, V2         ; rotate_half(x): -b0, a0, -b1, a1, ... (V4 is read before written)
    VMULS.f32 V6, V0, 0.5, P0         ; x * cos
    VMULS.f32 V7, V1, 0.5, P0
    VMULS.f32 V4, V4, 0.25, P0        ; rotate_half(x) * sin
    VMULS.f32 V5, V5, 0.25, P0
    VADD.f32 V6, V6, V4, P0
    VADD.f32 V7, V7, V5, P0
    VST.f32 [S2], V6, P0
    VST.f32 [S2 + 256], V7, P0
    PSET.b16 P1, ALL
    PSET.b8 P2, ALL
    VLD.s8 V8, [S3]
    VUNPACK.s16.s8 V9, V8             ; s8 elements 0..127 -> s16 lanes, sign-extended
    VST.s16 [S4], V9, P1
    VPACK.u8.s16 V10, V9              ; the low byte of each s16 lane -> u8 elements 0..127; 128..255 = 0
    VST.u8 [S4 + 256], V10, P2
    VF.END
    HALT
; EXPECT ub:0x200:f32:8 = 0 1.25 0.5 2.75 1 4.25 1.5 5.75
; EXPECT ub:0x300:f32:2 = 16 49.25
; EXPECT ub:0x3f8:f32:2 = 31.5 95.75
; EXPECT ub:0x500:s16:5 = -3 100 -128 127 0
; EXPECT ub:0x600:u8:5 = 0xfd 0x64 0x80 0x7f 0
; EXPECT ub:0x680:u8:4 = 0 0 0 0
