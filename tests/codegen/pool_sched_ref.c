/* pool_sched_ref.c - max pool 3x3, stride 2, padding 1 (padding is
 * -FLT_MAX) of a (2, 4, 10, 12) float32 tensor into (2, 4, 5, 6). */
#include "harness.h"

TIR_EXTERN int32_t pool_sched(float *data, float *pool_max TIR_STREAM_PARAM);

TIR_ALIGNED static float data[2 * 4 * 10 * 12], got[2 * 4 * 5 * 6], want[2 * 4 * 5 * 6];

int main(void) {
  fill_f32(data, sizeof data / sizeof *data, -2.0f, 2.0f);
  for (int nc = 0; nc < 8; nc++)
    for (int y = 0; y < 5; y++)
      for (int x = 0; x < 6; x++) {
        float m = -3.40282347e+38f;
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) {
            int yy = y * 2 + i - 1, xx = x * 2 + j - 1;
            float v = yy >= 0 && yy < 10 && xx >= 0 && xx < 12 ? data[(nc * 10 + yy) * 12 + xx] : -3.40282347e+38f;
            m = v > m ? v : m;
          }
        want[(nc * 5 + y) * 6 + x] = m;
      }
  int rc = pool_sched((float *)DEV(data, sizeof data), (float *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("pool_sched", rc, check_f32("pool_max", got, want, sizeof got / sizeof *got));
}
