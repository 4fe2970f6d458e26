/* conv2d_ref.c - NCHW conv2d, 2x4x10x12 * 8x4x3x3 -> 2x8x8x10, float32,
 * summed in (rc, ry, rx) order like the kernel. */
#include "harness.h"

TIR_EXTERN int32_t conv2d(float *data, float *weight, float *out TIR_STREAM_PARAM);

TIR_ALIGNED static float data[2 * 4 * 10 * 12], weight[8 * 4 * 3 * 3], got[2 * 8 * 8 * 10], want[2 * 8 * 8 * 10];

int main(void) {
  fill_f32(data, sizeof data / sizeof data[0], -1.0f, 1.0f);
  fill_f32(weight, sizeof weight / sizeof weight[0], -1.0f, 1.0f);
  for (int n = 0; n < 2; n++)
    for (int f = 0; f < 8; f++)
      for (int y = 0; y < 8; y++)
        for (int x = 0; x < 10; x++) {
          float s = 0.0f;
          for (int c = 0; c < 4; c++)
            for (int ry = 0; ry < 3; ry++)
              for (int rx = 0; rx < 3; rx++)
                s = s + data[((n * 4 + c) * 10 + y + ry) * 12 + x + rx] * weight[((f * 4 + c) * 3 + ry) * 3 + rx];
          want[((n * 8 + f) * 8 + y) * 10 + x] = s;
        }
  int rc = conv2d((float *)DEV(data, sizeof data), (float *)DEV(weight, sizeof weight), (float *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("conv2d", rc, check_f32("out", got, want, sizeof got / sizeof got[0]));
}
