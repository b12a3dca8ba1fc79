; Recipe: the asc_sub example of the 950 register API (CANN Ascend C API reference, C API asc_sub),
; 1000 halves, as one vector function with a hardware loop.
;
;     for (i = 0; i < repeat_time; ++i) {                 // LOOP repeat_time ... ENDLOOP
;         mask = asc_update_mask_b16(count);             // PUPDATE: count -= 128
;         asc_loadalign_postupdate(src0, src0_addr, 128); // VLD ..., post=128
;         asc_loadalign_postupdate(src1, src1_addr, 128);
;         asc_sub(dst, src0, src1, mask);
;         asc_storealign_postupdate(dst_addr, dst, 128, mask);
;     }
;
; repeat_time = ceil(1000 / 128) = 8. The last PUPDATE leaves 1000 - 7*128 = 104 lanes, so
; the last store writes elements 896..999 only: 1000..1023 of DST keep their 9.0.
; post=128 advances the address by 128 elements * 2 bytes = one VL.
; The function works on its own copy of S1..S4: the count and the addresses it advances are
; gone at VF.END, so after it S1..S4 hold what the MOVs put there.
; src0 chunk k (elements 128k..128k+127) holds k + 1, src1 is 0.5 everywhere.
.equ N,    1000
.equ REPEAT_TIME, (N + 127) / 128
.equ SRC0, 0x0000
.equ SRC1, 0x0800
.equ DST,  0x1000
.ubfill SRC0 + 0x000, f16, 128, 1.0
.ubfill SRC0 + 0x100, f16, 128, 2.0
.ubfill SRC0 + 0x200, f16, 128, 3.0
.ubfill SRC0 + 0x300, f16, 128, 4.0
.ubfill SRC0 + 0x400, f16, 128, 5.0
.ubfill SRC0 + 0x500, f16, 128, 6.0
.ubfill SRC0 + 0x600, f16, 128, 7.0
.ubfill SRC0 + 0x700, f16, 128, 8.0
.ubfill SRC1, f16, 1024, 0.5
.ubfill DST, f16, 1024, 9.0

    MOV S1, N                   ; count (the mask counter)
    MOV S2, SRC0
    MOV S3, SRC1
    MOV S4, DST
    VF.BEGIN
        LOOP REPEAT_TIME        ; 8 passes, a hardware loop: no counter, no branch
            PUPDATE.b16 P0, S1
            VLD.f16  V0, [S2], post=128
            VLD.f16  V1, [S3], post=128
            VSUB.f16 V2, V0, V1, P0
            VST.f16  [S4], V2, P0, post=128
        ENDLOOP
    VF.END
    HALT

; the function's post= and PUPDATE changed its own copies only
; EXPECT S1 = 1000
; EXPECT S2 = 0x0000
; EXPECT S3 = 0x0800
; EXPECT S4 = 0x1000
; EXPECT ub:0x1000:f16:2 = 0.5 0.5
; EXPECT ub:0x10fc:f16:4 = 0.5 0.5 1.5 1.5
; EXPECT ub:0x16fc:f16:4 = 6.5 6.5 7.5 7.5
; elements 998..1001: the end of the count, then the untouched tail
; EXPECT ub:0x17cc:f16:4 = 7.5 7.5 9 9
; EXPECT ub:0x17fe:f16:2 = 9 0
