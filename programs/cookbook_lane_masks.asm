; Cookbook recipe 4: masks for the first and the last lanes, tensor and register forms.
;
; Tensor instructions (lanes outside the mask keep their old value; sources are 1, +1 = 2):
;   TA  mask=5                          lanes 0..4      (continuous: always the FIRST N lanes)
;   TB  mask=(0, 0xffffffffffffffff)    f16 lanes 64..127 (bit i of HIGH = lane 64 + i)
;   TC  mask=(0, 0xffc0000000000000)    f16 lanes 118..127, the last 10 (HIGH bits 54..63)
;   TD  mask=(0xe000000000000000, 0)    f32 lanes 61..63, the last 3 (f32 has 64 lanes, HIGH = 0)
; Register instructions, in a vector function (predicates P0..P7, one bit per byte of VL):
;   PSET.b16 H: lanes 0..63. A compute instruction ZEROES the lanes outside its predicate
;   (RE, stored with ALL); a store leaves them unwritten (RE2, stored with the predicate).
;   PUPDATE.b16 with S5 = 200: 128 lanes (S5 -> 72), then 72 lanes (S5 -> 0), then none. The
;   function counts down its own copy of S5: after VF.END the scalar unit's S5 is still 200.
;   The last lanes: no PSET pattern names them; PLD a mask from UB. Lanes 124..127 of a
;   16-bit type are mask bits 248..255 = byte 31 of the 32 mask bytes.
;   Pitfall: PSET.b16 VL8 sets bits 0..15; an f32 lane i reads bit 4i, so a VST.f32 with
;   it stores lanes 0..3 only. Use PSET.b32 for 32-bit types.
.equ TA, 0x0000
.equ TB, 0x0100
.equ TC, 0x0200
.equ TD, 0x0300
.equ ONES16, 0x1000        ; 128 f16 = 1
.equ MASKB,  0x1100        ; 32 mask bytes
.equ ONES32, 0x1200        ; 64 f32 = 1
.equ OUT,    0x2000        ; RE, RE2, RF, RF2, RG, RH, RH2, R128 at OUT + 0x100 * k
.ubfill TA, f16, 128, 1.0
.ubfill TB, f16, 128, 1.0
.ubfill TC, f16, 128, 1.0
.ubfill TD, f32, 64, 1.0
.ubfill ONES16, f16, 128, 1.0
.ub MASKB + 31, u8, 0xff
.ubfill ONES32, f32, 64, 1.0
.ubfill OUT, f16, 640, -1.0           ; RE .. RG
.ubfill OUT + 0x500, f32, 128, -1.0   ; RH, RH2
.ubfill OUT + 0x700, f16, 128, -1.0   ; R128

    VADDS.f16 [TA], [TA], 1.0, mask=5
    VADDS.f16 [TB], [TB], 1.0, mask=(0, 0xffffffffffffffff)
    VADDS.f16 [TC], [TC], 1.0, mask=(0, 0xffc0000000000000)
    VADDS.f32 [TD], [TD], 1.0, mask=(0xe000000000000000, 0)

    MOV S1, ONES16
    MOV S2, MASKB
    MOV S3, ONES32
    MOV S10, OUT
    MOV S5, 200
    VF.BEGIN                           ; the register instructions run in a vector function
        PSET.b16 P7, ALL
        PSET.b16 P0, H
        VLD.f16 V0, [S1]
        VADDS.f16 V1, V0, 1.0, P0          ; lanes 0..63 = 2, lanes 64..127 = 0
        VST.f16 [S10], V1, P7              ; RE
        VST.f16 [S10 + 0x100], V1, P0      ; RE2
        PUPDATE.b16 P1, S5                 ; 128 lanes, S5 -> 72
        PUPDATE.b16 P2, S5                 ; 72 lanes, S5 -> 0
        PUPDATE.b16 P3, S5                 ; no lanes
        VST.f16 [S10 + 0x200], V0, P2      ; RF
        VST.f16 [S10 + 0x300], V0, P3      ; RF2: nothing stored
        PLD P4, [S2]
        VST.f16 [S10 + 0x400], V0, P4      ; RG: lanes 124..127
        VLD.f32 V2, [S3]
        PSET.b16 P5, VL8
        VST.f32 [S10 + 0x500], V2, P5      ; RH: pitfall, 4 lanes
        PSET.b32 P6, VL8
        VST.f32 [S10 + 0x600], V2, P6      ; RH2: 8 lanes
        VST.f16 [S10 + 0x700], V0, P1      ; R128: all 128 lanes
    VF.END
    HALT

; TA lanes 0..5 and 127
; EXPECT ub:0x0000:f16:6 = 2 2 2 2 2 1
; EXPECT ub:0x00fe:f16:1 = 1
; TB lane 0, lanes 63..64, lane 127
; EXPECT ub:0x0100:f16:1 = 1
; EXPECT ub:0x017e:f16:2 = 1 2
; EXPECT ub:0x01fe:f16:1 = 2
; TC lane 0, lanes 117..118, lane 127
; EXPECT ub:0x0200:f16:1 = 1
; EXPECT ub:0x02ea:f16:2 = 1 2
; EXPECT ub:0x02fe:f16:1 = 2
; TD lane 0, lanes 60..63
; EXPECT ub:0x0300:f32:1 = 1
; EXPECT ub:0x03f0:f32:4 = 1 2 2 2
; RE: lanes 63..64 and 127 (zeroed by the compute); RE2: the same lanes, not stored
; EXPECT ub:0x2000:f16:1 = 2
; EXPECT ub:0x207e:f16:2 = 2 0
; EXPECT ub:0x20fe:f16:1 = 0
; EXPECT ub:0x217e:f16:2 = 2 -1
; EXPECT ub:0x21fe:f16:1 = -1
; PUPDATE counted down the function's copy of S5 (RF and RF2 show 72, then 0); S5 keeps 200
; EXPECT S5 = 200
; RF lanes 0, 71..72; RF2 untouched; R128 lanes 0 and 127
; EXPECT ub:0x2200:f16:1 = 1
; EXPECT ub:0x228e:f16:2 = 1 -1
; EXPECT ub:0x2300:f16:1 = -1
; EXPECT ub:0x23fe:f16:1 = -1
; EXPECT ub:0x2700:f16:1 = 1
; EXPECT ub:0x27fe:f16:1 = 1
; RG: lanes 123..127, and lane 0
; EXPECT ub:0x2400:f16:1 = -1
; EXPECT ub:0x24f6:f16:5 = -1 1 1 1 1
; RH: 4 lanes (b16 predicate on f32); RH2: 8 lanes
; EXPECT ub:0x2500:f32:5 = 1 1 1 1 -1
; EXPECT ub:0x2600:f32:9 = 1 1 1 1 1 1 1 1 -1
