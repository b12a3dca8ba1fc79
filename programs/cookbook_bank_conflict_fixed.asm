; Cookbook recipe 9 (after): the kernel of cookbook_bank_conflict.asm with Y and Z moved by
; 0x100, which flips their address bit 8 (the 950 bank bit) in every iteration:
;   VADD  T = X + Y   bank (g, b):  X read + T write = 2; bank (g, !b): Y read = 1;
;                     group g: 2 reads + 1 write = max(1, ceil(3 / 2)) = 2 cycles -> 1 extra
;   VMULS Z = T * 0.5 T read in bank (g, b), Z write in (g, !b); group: 1 read + 1 write
;                     = 1 cycle -> no extra cycle
; A binary op whose three operands each cover all 8 groups cannot go below 1 extra cycle an
; iteration on 950: every group sees 2 reads and 1 write (unless both sources are one address).
.equ X, 0x0000             ; 1024 f16 = 8 VLs
.equ Y, 0x2100             ; was 0x2000
.equ T, 0x4000
.equ Z, 0x6100             ; was 0x6000
.ubfill X, f16, 1024, 1.5
.ubfill Y, f16, 1024, 0.25

    VADD.f16  [T], [X], [Y], repeat=8
    VMULS.f16 [Z], [T], 0.5, repeat=8
    HALT

; EXPECT ub:0x4000:f16:1 = 1.75
; EXPECT ub:0x47fe:f16:2 = 1.75 0
; EXPECT ub:0x6100:f16:1 = 0.875
; EXPECT ub:0x68fe:f16:2 = 0.875 0
