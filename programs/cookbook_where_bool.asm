; Cookbook recipe 16: where(cond, x, y) over f32 with cond a bool tensor, one byte an element (0 or 1),
; in a vector function (950). Two ways to turn the bytes into a predicate of 32-bit lanes:
;   1. compare the bytes (a b8 predicate, bit k = element k), then PUNPACK twice: b16 over elements
;      0..127, then b32 over elements 0..63 (part=hi of the b16 one: elements 64..127);
;   2. widen the bytes with VUNPACK twice (u8 -> u16 -> u32 lanes), then compare the 32-bit lanes.
;   cond: elements 0, 2, 3 and 7 true, 64 and 65 false then true ... 127 true; x = 1.5, y = -1
.equ COND, 0x0
.equ X,    0x100
.equ Y,    0x300
.equ OUT,  0x500
.equ OUT2, 0x700
.ub COND, u8, 1, 0, 1, 1, 0, 0, 0, 1
.ub COND + 64, u8, 0, 1
.ub COND + 127, u8, 1
.ubfill X, f32, 128, 1.5
.ubfill Y, f32, 128, -1.0
    MOV S1, COND
    MOV S2, X
    MOV S3, Y
    MOV S4, OUT
    MOV S5, OUT2
    VF.BEGIN
    PSET.b8 P0, ALL
    PSET.b32 P5, ALL
    VLD.u8 V0, [S1]                   ; the bools, one a byte: elements 0..255
    VCMPS.NE.u8 P1, V0, 0, P0         ; 1. b8 predicate: bit k = element k is true
    PUNPACK P2, P1                    ;    b16: bit 2k = element k, k < 128
    PUNPACK P3, P2                    ;    b32: bit 4k = element k, k < 64
    PUNPACK P4, P2, part=hi           ;    b32: bit 4k = element 64 + k
    VLD.f32 V1, [S2]
    VLD.f32 V2, [S3]
    VSEL.f32 V3, V1, V2, P3           ; elements 0..63
    VST.f32 [S4], V3, P5
    VLD.f32 V1, [S2 + 256]
    VLD.f32 V2, [S3 + 256]
    VSEL.f32 V3, V1, V2, P4           ; elements 64..127
    VST.f32 [S4 + 256], V3, P5
    VUNPACK.u16.u8 V4, V0             ; 2. elements 0..127 as u16 lanes (zero-extended)
    VUNPACK.u32.u16 V5, V4            ;    elements 0..63 as u32 lanes
    VCMPS.NE.u32 P6, V5, 0, P5        ;    b32 predicate: every bit of a true lane
    VLD.f32 V1, [S2]
    VLD.f32 V2, [S3]
    VSEL.f32 V6, V1, V2, P6
    VST.f32 [S5], V6, P5
    VF.END
    HALT
; EXPECT ub:0x500:f32:8 = 1.5 -1 1.5 1.5 -1 -1 -1 1.5
; EXPECT ub:0x600:f32:2 = -1 1.5
; EXPECT ub:0x6fc:f32:1 = 1.5
; EXPECT ub:0x700:f32:8 = 1.5 -1 1.5 1.5 -1 -1 -1 1.5
; EXPECT ub:0x7e0:f32:8 = -1 -1 -1 -1 -1 -1 -1 -1
