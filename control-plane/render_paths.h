/* Where the rendered files are installed and where the daemons they
 * configure listen: the names render, check, install and status share.
 * Only definitions: no code. */
#ifndef CPHA_RENDER_PATHS_H
#define CPHA_RENDER_PATHS_H

/* Where installed files live: shared by render and check. */
#define RENDER_PKI_K8S          "/etc/kubernetes/pki"
#define RENDER_PKI_ETCD         "/etc/etcd/pki"
/* etcd's files (the classic names), shared by the flags and the pcs script */
#define RENDER_ETCD_CA          RENDER_PKI_ETCD "/ca.pem"
#define RENDER_ETCD_SERVER_CERT RENDER_PKI_ETCD "/etcd-server.pem"
#define RENDER_ETCD_SERVER_KEY  RENDER_PKI_ETCD "/etcd-server-key.pem"
#define RENDER_ETCD_CLIENT_CERT RENDER_PKI_ETCD "/etcd-client.pem"
#define RENDER_ETCD_CLIENT_KEY  RENDER_PKI_ETCD "/etcd-client-key.pem"
#define RENDER_KCM_DIR          "/var/lib/kube-controller-manager"
#define RENDER_SCHED_DIR        "/var/lib/kube-scheduler"
#define RENDER_ADMIN_CONFIG     "/etc/kubernetes/admin.conf"
/* etcd.snapshot's units on each etcd member (.service, .timer) */
#define RENDER_SNAPSHOT_UNIT    "/etc/systemd/system/cpha-etcd-snapshot"

/* system:masters, the break-glass credentials */
#define RENDER_SUPER_ADMIN_CONFIG "/etc/kubernetes/super-admin.conf"
/* static pods: the kubelet of each master (kubeadm's paths) */
#define RENDER_KUBELET_CONFIG     "/var/lib/kubelet/config.yaml"
#define RENDER_KUBELET_KUBECONFIG "/etc/kubernetes/kubelet.conf"
/* where node-HOST.pem and its key are installed, as kubelet-client*.pem */
#define RENDER_KUBELET_PKI        "/var/lib/kubelet/pki"
/* cluster-wide: the RBAC bindings kubeadm makes at init, applied once with
 * super-admin.conf */
#define RENDER_BOOTSTRAP_RBAC     "bootstrap-rbac.yaml"

/* Where the daemons of an LB host listen, as rendered. */
#define RENDER_LBD_SOCKET            "/run/lbd/admin.sock"
#define RENDER_HAPROXY_SOCKET        "/run/haproxy/admin.sock"
/* HAProxy's read-only stats socket, for prometheus-haproxy-exporter (with
 * monitoring.prometheus), and where that exporter listens (its default) */
#define RENDER_HAPROXY_STATS_SOCKET  "/run/haproxy/stats.sock"
#define RENDER_HAPROXY_EXPORTER_PORT 9101
#define RENDER_VIPD_SOCKET           "/run/vipd/admin.sock"
#define RENDER_FENCED_SOCKET         "/run/fenced/admin.sock"
#define RENDER_LB_MONITOR            "127.0.0.1:8404" /* /healthz (503: no apiserver up), /metrics */
/* Ports on the host's own address, so that `cpha status` on another host
 * reads them: the monitor frontend again, and the daemons' /metrics and
 * /status listeners. */
#define RENDER_LB_MONITOR_PORT       8404
#define RENDER_LBD_METRICS_PORT      9120
#define RENDER_VIPD_METRICS_PORT     9121
#define RENDER_FENCED_METRICS_PORT   9122
#define RENDER_LB_PROXY              "apiserver" /* the listen section: track_lbd's backend */
/* `cpha drain LBHOST` writes 1 here, `cpha undrain` 0: the VRRP instances
 * track it (track_file RENDER_LB_DRAIN_TRACK, weight 0: FAULT while it is
 * not 0). Under /var/lib, so a host drained before a reboot comes back
 * drained. */
#define RENDER_LB_DRAIN_FILE         "/var/lib/cpha/lb-drain"
#define RENDER_LB_DRAIN_TRACK        "lb_drain"
/* the cluster CA on every host with monitoring.tls: what cpha status and
 * cpha drain there verify the daemons' /status with */
#define RENDER_MON_CA                "/etc/cpha/ca.pem"

/* Installed paths of the files. */
#define RENDER_LBD_CFG         "/etc/lbd/lbd.cfg"
#define RENDER_HAPROXY_CFG     "/etc/haproxy/haproxy.cfg"
#define RENDER_VIPD_CONF       "/etc/vipd/vipd.conf"
#define RENDER_KEEPALIVED_CONF "/etc/keepalived/keepalived.conf"
#define RENDER_SYSCTL_LB       "/etc/sysctl.d/60-cpha-lb.conf"
#define RENDER_COROSYNC_CONF   "/etc/corosync/corosync.conf"
#define RENDER_FENCED_CONF     "/etc/fenced/fenced.conf"
#define RENDER_PCS_SCRIPT      "pcs-commands.sh"
#define RENDER_CIB             "cib.xml"

#endif
