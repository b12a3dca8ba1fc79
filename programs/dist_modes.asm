; Distribution modes: one VLD or VST moves data between UB and registers in another layout
; (docs/language.md, "Distribution modes of loads and stores (950)").
    .equ IN,  0x0
    .equ OUT, 0x400
    .ub IN, u16, 1, 2, 3, 4, 5, 6, 7, 8
    .ub 0x20, u8, 7, 200
        MOV S1, IN
        MOV S2, OUT
        VF.BEGIN
        PSET.b16 P0, VL4
        PSET.b32 P1, VL2
        VLD.u16 V0, [S1], dist=brc_b16            ; every lane = element 0
        VLD.u16 V1, [S1], dist=us_b16             ; each element twice: 1 1 2 2 ...
        VLD.u16 V2, V3, [S1], dist=dintlv_b16     ; 512 bytes: V2 = 1 3 5 7 ..., V3 = 2 4 6 8 ...
        VLD.u8  V4, [S1 + 32], dist=unpack4_b8    ; bytes to 32-bit lanes, zero-extended: 7, 200, 0 ...
        VST.u16 [S2], V0, P0                      ; (the default mode, norm: the active lanes)
        VST.u16 [S2 + 32], V1, P0
        VST.u16 [S2 + 512], V2, V3, dist=intlv_b16   ; interleaved back: the 512 bytes as they were
        VST.u32 [S2 + 1024], V4, P1
        VST.u16 [S2 + 1056], V4, P1, dist=pack_b32   ; the low 16 bits of each active 32-bit lane
        VST.u32 [S2 + 1092], V4, dist=first_b32      ; lane 0 alone, at a 4-byte aligned address
        VF.END
        HALT
; EXPECT ub:0x400:u16:4 = 1 1 1 1
; EXPECT ub:0x420:u16:6 = 1 1 2 2 0 0
; EXPECT ub:0x600:u16:9 = 1 2 3 4 5 6 7 8 0
; EXPECT ub:0x620:u8:3 = 7 200 0
; EXPECT ub:0x800:u32:3 = 7 200 0
; EXPECT ub:0x820:u16:3 = 7 200 0
; EXPECT ub:0x840:u32:3 = 0 7 0
