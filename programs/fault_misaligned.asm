; Recipe: what a misaligned UB access looks like - a post-increment that breaks alignment.
;
; VLD/VST need a 32-byte aligned UB address. post=N adds N elements * size bytes to the
; address register, so post=8 on f16 adds 16 bytes: the first load is fine and leaves the
; function's S1 = 16, the second load from [S1] faults. The run stops there, with the message
; naming that VLD's line. S1 is the scalar unit's, which a function never changes (post=
; advanced the function's own copy), so it is still 0; the store after the fault never runs.
.ubfill 0x0000, f16, 256, 1.0

    MOV S1, 0x0000
    MOV S2, 0x1000
    VF.BEGIN
        PSET.b16 P0, ALL
        VLD.f16 V0, [S1], post=8          ; S1 := 0x10, no longer a multiple of 32
        VST.f16 [S2], V0, P0
        VLD.f16 V1, [S1]                  ; faults
        VST.f16 [S2 + 0x100], V1, P0      ; never runs
    VF.END
    HALT

; EXPECT-FAULT VLD: UB address 0x10 is not 32-byte aligned
; EXPECT S1 = 0
; EXPECT S2 = 0x1000
; EXPECT ub:0x1100:f16:2 = 0 0
; EXPECT ub:0x11fe:f16:1 = 0
