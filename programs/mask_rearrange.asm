; Predicate re-granulation: a "where" over f32 whose condition is a packed bit mask in
; UB, one bit per element (the bool tensor of a masked fill). PLD reads 256 bits as a b8 predicate over
; elements 0..255; PUNPACK twice spreads elements 0..63 to one bit every 4 (a b32 predicate, the low
; bit of each lane's group, which is the bit a 32-bit lane reads), and VSEL picks x where it is set,
; else the fill value. PSEL and PPACK are shown too.
;   condition bits (byte 0 = 0b00100101): elements 0, 2, 5 set; byte 1 = 0x80: element 15 set
;   x = 1.5, fill = -1: out = 1.5 -1 1.5 -1 -1 1.5 -1 ... element 15 = 1.5
.equ COND, 0x0
.equ X,    0x100
.equ OUT,  0x200
.ub COND, u8, 0x25, 0x80
.ubfill X, f32, 64, 1.5
    MOV S1, COND
    MOV S2, X
    MOV S3, OUT
    MOV S4, 0x300
    VF.BEGIN
    PLD P1, [S1]                      ; b8 predicate: bit k = element k
    PUNPACK P2, P1                    ; b16: bit 2k = element k (k < 128)
    PUNPACK P3, P2                    ; b32: bit 4k = element k (k < 64)
    PSET.b32 P0, ALL
    VLD.f32 V0, [S2]
    VDUP.f32 V1, -1.0, P0
    VSEL.f32 V2, V0, V1, P3           ; x where the condition holds, else the fill
    VST.f32 [S3], V2, P0
    PPACK P4, P3                      ; back to b16: bit 2k = element k again ...
    PPACK P5, P4                      ; ... and to b8: the condition as it was loaded (elements 0..63)
    PSEL P6, P5, P1, P0               ; bit by bit: P0's set bits (4k) from P5, the others from P1
    PST [S4], P5
    MOV S4, 0x320
    PST [S4], P6
    VF.END
    HALT
; EXPECT ub:0x200:f32:8 = 1.5 -1 1.5 -1 -1 1.5 -1 -1
; EXPECT ub:0x220:f32:8 = -1 -1 -1 -1 -1 -1 -1 1.5
; EXPECT ub:0x300:u8:3 = 0x25 0x80 0
; EXPECT ub:0x320:u8:3 = 0x25 0x80 0
