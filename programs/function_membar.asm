; Recipe: a vector function that reads back what it stored - order the two with MEMBAR.
;
; Inside a vector function the hardware honours register dependencies, but not the order of
; UB accesses: a VLD of bytes an earlier VST of the same function wrote may run first and read
; the old bytes. A MEMBAR between them makes every UB access before it finish before any after
; it starts. Without the MEMBAR below, vcore warns of a RAW race that names the VST's and the
; VLD's lines, and the VLD sees what the timing gives (here the old -1s, so Z would be 0).
;
; The function shifts a vector by 8 f32 lanes through UB: Y = 2 * X is stored at BUF, and the
; load from BUF + 32 (one datablock on) gives lane i = Y[i + 8] for i < 56 and, past Y's 64
; lanes, the -1s that follow BUF. Z = shifted + X:
;   lanes 0..55: 2 + 1 = 3        lanes 56..63: -1 + 1 = 0
; The VST of Z needs no MEMBAR after the VLD: its data comes from the VLD through V3.
.equ X,   0x0000
.equ BUF, 0x1000
.equ OUT, 0x2000
.ubfill X, f32, 64, 1.0
.ubfill BUF, f32, 72, -1.0            ; 64 lanes of Y, then the 8 the shifted load reads past it

    VF.BEGIN
        PSET.b32 P0, ALL
        VLD.f32  V0, [X]
        VADD.f32 V1, V0, V0, P0           ; Y = 2 * X
        VST.f32  [BUF], V1, P0
        MEMBAR                            ; the VST is in UB before the VLD reads
        VLD.f32  V2, [BUF + 32]           ; Y shifted down by 8 lanes
        VADD.f32 V3, V2, V0, P0
        VST.f32  [OUT], V3, P0
    VF.END
    HALT

; EXPECT ub:0x1000:f32:2 = 2 2
; EXPECT ub:0x10fc:f32:3 = 2 -1 -1
; EXPECT ub:0x2000:f32:2 = 3 3
; EXPECT ub:0x20dc:f32:2 = 3 0
; EXPECT ub:0x20fc:f32:1 = 0
