; Conditional assembly: .if picks lines at assembly time. TILE is 64 unless the command line sets it
; (vcore run -D TILE=2048 -D FAST=1 takes the fast path; -D TILE=48 stops with the .error's message),
; and the macro SCALE assembles the cheapest code for each factor it is given.
.ifndef TILE
.equ TILE, 64
.endif
.if TILE % 32 != 0 || TILE > 4096
.error "TILE must be a multiple of 32, at most 4096"
.elif TILE >= 1024 && defined(FAST)
    MOV S1, 1                   ; large tiles, fast path
.else
    MOV S1, 2                   ; default path
.endif
.macro SCALE reg, k
.if \k == 1
.elif \k == 2
    ADD \reg, \reg, \reg        ; doubling needs no multiply
.else
    MUL \reg, \reg, \k
.endif
.endm
    MOV S2, 5
    SCALE S2, 1                 ; nothing
    SCALE S2, 2                 ; S2 = 10
    SCALE S2, 3                 ; S2 = 30
    HALT
; EXPECT S1 = 2
; EXPECT S2 = 30
