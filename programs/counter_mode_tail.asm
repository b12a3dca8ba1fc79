; Recipe: counter mode (count=N) for a ragged number of elements.
;
; count=N runs ceil(N / lanes) iterations, the last one masked to the remaining lanes,
; so no hand-written tail is needed. Elements past N keep their old value.
;   f16, count=300: 128 + 128 + 44 lanes (elements 0..299).
;   f32, count=100: 64 + 36 lanes (elements 0..99).
;   u16, count=130 with repeat strides 16: strides still apply, so iteration 1 (2 lanes)
;   starts 16 datablocks (512 B) after iteration 0.
.ubfill 0x0000, f16, 384, 2.0
.ubfill 0x1000, f16, 384, -1.0
.ubfill 0x2000, f32, 128, 0.25
.ubfill 0x3000, f32, 128, 7.0
.ubfill 0x4000, u16, 512, 5

    VADDS.f16 [0x1000], [0x0000], 1.0, count=300
    VMULS.f32 [0x3000], [0x2000], 4.0, count=100
    VADDS.u16 [0x5000], [0x4000], 1, count=130, dstrep=16, srcrep=16
    HALT

; f16: elements 0, 255..256, 298..301 (the tail ends at 299), 383
; EXPECT ub:0x1000:f16:1 = 3
; EXPECT ub:0x11fe:f16:2 = 3 3
; EXPECT ub:0x1254:f16:4 = 3 3 -1 -1
; EXPECT ub:0x12fe:f16:1 = -1
; f32: elements 98..101, 127
; EXPECT ub:0x3188:f32:4 = 1 1 7 7
; EXPECT ub:0x31fc:f32:1 = 7
; u16: iteration 0 is 0x5000..0x50ff, the gap is untouched, iteration 1 writes 2 lanes at 0x5200
; EXPECT ub:0x50fc:u16:3 = 6 6 0
; EXPECT ub:0x51fe:u16:4 = 0 6 6 0
