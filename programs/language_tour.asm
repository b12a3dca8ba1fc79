; A tour of the assembly language (docs/language.md walks through it line by line).
; Run it: vcore run programs/language_tour.asm --dump ub:0x1000:f32:4
.equ N, 64                      ; a constant
.equ OUT, 0x1000                ; addresses are bytes; UB operands must be 32-byte aligned
.ubfill 0x0, f32, N, 1.5        ; N copies of 1.5 at UB 0x0
.ub 0x100, f32, 1, 2, 3, 4      ; a list of values at UB 0x100
.gm 0x0, u16, 7, 8              ; data can go to GM too

    MOV S1, 0                   ; scalar registers S0..S31 (S0 reads as 0)
    MOV S2, OUT
loop:                           ; a label
    VADDS.f32 [S2], [0x0], 1.0, mask=4   ; a tensor op: 4 lanes of 1.5 + 1.0
    ADD S1, S1, 1
    ADD S2, S2, 32 * 8          ; expressions: C's operators (+ - * / % << >> < == & ^ | && || ! ~ ...)
    BLT S1, 2, loop             ; signed compare and branch
    VMUL.f32 [0x2000], [0x100], [0x100], repeat=1, dstblk=1   ; keyword fields, any order
    DMA.GM2UB [0x3000], gm[0x0], len=1                        ; MTE2: 32 bytes of GM into UB
    SETFLAG MTE2, V, 0          ; order the V pipe after the DMA...
    WAITFLAG MTE2, V, 0         ; ...before it reads what the DMA wrote
    VADDS.u16 [0x3100], [0x3000], 100, mask=2
.macro BUMP reg, by             ; a macro: \reg and \by are its parameters
    ADD \reg, \reg, \by
.endm
.if N >= 64 && N % 8 == 0       ; conditional assembly: only the lines of the branch taken
.rept 3                         ; the lines up to .endr, 3 times (vcore run -D sets constants too)
    BUMP S5, N                  ; a use of the macro: ADD S5, S5, N
.endr
.else
.error "N must be a multiple of 8, at least 64"
.endif
    MOV S3, OUT
    MOV S4, 0x4000
    VF.BEGIN                    ; a vector function (950): register instructions run only in one
        PSET.b32 P0, VL4        ; mask register P0: f32 lanes 0..3
        LOOP 2                  ; a hardware loop: its body runs 2 times
            VLD.f32 V0, [S3], post=64     ; a vector register from UB; S3 += 64 elements
            VADD.f32 V1, V0, V0, P0       ; 2.5 + 2.5 in lanes 0..3, 0 elsewhere
            VST.f32 [S4], V1, P0, post=64 ; lanes 0..3 only
        ENDLOOP
    VF.END                      ; the function's S3, S4 advanced; the scalar unit's did not
    HALT

; EXPECT ub:0x1000:f32:5 = 2.5 2.5 2.5 2.5 0
; EXPECT ub:0x1100:f32:4 = 2.5 2.5 2.5 2.5
; EXPECT ub:0x2000:f32:4 = 1 4 9 16
; EXPECT ub:0x3100:u16:3 = 107 108 0
; EXPECT ub:0x4000:f32:5 = 5 5 5 5 0
; EXPECT ub:0x4100:f32:5 = 5 5 5 5 0
; EXPECT S1 = 2
; EXPECT S2 = 0x1200
; EXPECT S3 = 0x1000
; EXPECT S4 = 0x4000
; EXPECT S5 = 192
