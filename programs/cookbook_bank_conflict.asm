; Cookbook recipe 9 (before): operands that collide in UB banks on the 950 profile.
;
; 950 banks (docs/timing.md): group = address bits [7:5], bank bit = bit 8. A bank does one
; access a cycle; a group 2 reads or 1 read + 1 write. An iteration touches 8 contiguous blocks
; per operand, one in each group, and all 8 have the same bit 8.
; X, Y, T and Z are all multiples of 0x200, so in every iteration every operand has the same
; bit 8 and each block lands in the same bank as its counterparts:
;   VADD  T = X + Y   bank (g, bit 8): 2 reads + 1 write = 3 cycles -> 2 extra per iteration
;   VMULS Z = T * 0.5 bank (g, bit 8): 1 read + 1 write  = 2 cycles -> 1 extra per iteration
; The fix is in programs/cookbook_bank_conflict_fixed.asm.
.equ X, 0x0000             ; 1024 f16 = 8 VLs
.equ Y, 0x2000
.equ T, 0x4000
.equ Z, 0x6000
.ubfill X, f16, 1024, 1.5
.ubfill Y, f16, 1024, 0.25

    VADD.f16  [T], [X], [Y], repeat=8
    VMULS.f16 [Z], [T], 0.5, repeat=8
    HALT

; T = 1.5 + 0.25 = 1.75, Z = 0.875: first and last element, and past the end
; EXPECT ub:0x4000:f16:1 = 1.75
; EXPECT ub:0x47fe:f16:2 = 1.75 0
; EXPECT ub:0x6000:f16:1 = 0.875
; EXPECT ub:0x67fe:f16:2 = 0.875 0
