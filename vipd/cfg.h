/* Parsing and validating vipd's configuration (keepalived's language).
 * Pure: reads files, returns structures and messages, logs nothing. */
#ifndef VIPD_CFG_H
#define VIPD_CFG_H

#include <stddef.h>

#include "cfg-types.h"
#include "cfgdiag.h"

/* Parse and validate. 0 with *out set (warnings in (*out)->notices), or -1
 * with every error found in errs. */
int vipd_cfg_load(const char *path, struct vipd_config **out, struct cpha_msgs *errs);
int vipd_cfg_load_mem(const char *name, const char *text, size_t len, struct vipd_config **out,
	struct cpha_msgs *errs);

/* keepalived's config id for '@ID' lines (vipd -i); NULL: the host name up
 * to its first '.', the default. */
void vipd_cfg_set_config_id(const char *id);
const char *vipd_cfg_config_id(void);

void vipd_cfg_free(struct vipd_config *c);

const struct vipd_script *vipd_cfg_script(const struct vipd_config *c, const char *name);
const struct vipd_instance *vipd_cfg_instance(const struct vipd_config *c, const char *name);
const struct vipd_track_file_def *vipd_cfg_track_file(
	const struct vipd_config *c, const char *name);
const struct vipd_track_process_def *vipd_cfg_track_process(
	const struct vipd_config *c, const char *name);
const struct vipd_bfd_def *vipd_cfg_bfd(const struct vipd_config *c, const char *name);

#endif
