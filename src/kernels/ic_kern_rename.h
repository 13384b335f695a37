/* ic_kern_rename: force-included (-include) into each SIMD variant's build
 * of ic_kern_simd.c, ic_kern.c and ic_mbench.c: every function of
 * ic_kern_api.h gets the variant's suffix (-DIC_KERN_SUFFIX=_avx2), so the
 * three builds link into one program side by side. */
#ifndef IC_KERN_RENAME_H
#define IC_KERN_RENAME_H

#ifndef IC_KERN_SUFFIX
#error "IC_KERN_SUFFIX (e.g. _avx2) must be defined"
#endif
#define IC_KR_CAT2_(a, b) a##b
#define IC_KR_CAT_(a, b) IC_KR_CAT2_(a, b)
#define IC_KR_(name) IC_KR_CAT_(name, IC_KERN_SUFFIX)

#define ic_kern_wtype_name IC_KR_(ic_kern_wtype_name)
#define ic_kern_kvtype_name IC_KR_(ic_kern_kvtype_name)
#define ic_kern_wtype_bits IC_KR_(ic_kern_wtype_bits)
#define ic_kern_uniform IC_KR_(ic_kern_uniform)
#define ic_kern_f32_to_bf16 IC_KR_(ic_kern_f32_to_bf16)
#define ic_kern_bf16_to_f32 IC_KR_(ic_kern_bf16_to_f32)
#define ic_kern_matrix_create IC_KR_(ic_kern_matrix_create)
#define ic_kern_matrix_free IC_KR_(ic_kern_matrix_free)
#define ic_kern_matrix_bytes IC_KR_(ic_kern_matrix_bytes)
#define ic_kern_matrix_rows IC_KR_(ic_kern_matrix_rows)
#define ic_kern_matrix_cols IC_KR_(ic_kern_matrix_cols)
#define ic_kern_matrix_row IC_KR_(ic_kern_matrix_row)
#define ic_kern_matmul IC_KR_(ic_kern_matmul)
#define ic_kern_matmul_scratch_B IC_KR_(ic_kern_matmul_scratch_B)
#define ic_kern_create IC_KR_(ic_kern_create)
#define ic_kern_free IC_KR_(ic_kern_free)
#define ic_kern_step IC_KR_(ic_kern_step)
#define ic_kern_row_work IC_KR_(ic_kern_row_work)
#define ic_kern_set_cache IC_KR_(ic_kern_set_cache)
#define ic_kern_fill_cache IC_KR_(ic_kern_fill_cache)
#define ic_kern_forward_nocache IC_KR_(ic_kern_forward_nocache)
#define ic_kern_get_shape IC_KR_(ic_kern_get_shape)
#define ic_kern_weight_bytes IC_KR_(ic_kern_weight_bytes)
#define ic_mb_now IC_KR_(ic_mb_now)
#define ic_mb_summary IC_KR_(ic_mb_summary)
#define ic_mb_read IC_KR_(ic_mb_read)
#define ic_mb_copy IC_KR_(ic_mb_copy)
#define ic_mb_triad IC_KR_(ic_mb_triad)
#define ic_mb_fma_peak IC_KR_(ic_mb_fma_peak)
#define ic_mb_fork_join IC_KR_(ic_mb_fork_join)
#define ic_mb_matmul IC_KR_(ic_mb_matmul)

#endif
