//! Service health: real host figures (disk of the data directory, memory, cpu, GPUs),
//! the search store and language-processing status, and active tasks — in both the
//! interface's flat shape and the 2.10 nested shape.
use super::error::Result;
use super::Engine;
use serde_json::{json, Value};
use std::path::Path;

const GIB: f64 = (1u64 << 30) as f64;

fn gb(bytes: u64) -> f64 {
    (bytes as f64 / GIB * 100.0).round() / 100.0
}

fn sizes(free: u64, total: u64) -> Value {
    json!({"free": gb(free), "total": gb(total), "used": gb(total.saturating_sub(free)), "unit": "GB"})
}

/// Free and total bytes of the filesystem holding `dir` (longest mount-point prefix).
fn disk_of(dir: &Path) -> (u64, u64) {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let disks = sysinfo::Disks::new_with_refreshed_list();
    disks
        .list()
        .iter()
        .filter(|d| dir.starts_with(d.mount_point()))
        .max_by_key(|d| d.mount_point().as_os_str().len())
        .map(|d| (d.available_space(), d.total_space()))
        .unwrap_or((0, 0))
}

/// NVIDIA GPUs as the kernel driver lists them (model names).
fn gpus() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc/driver/nvidia/gpus") else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| {
            std::fs::read_to_string(e.path().join("information"))
                .ok()
                .and_then(|info| info.lines().find_map(|l| l.strip_prefix("Model:").map(|m| m.trim().to_string())))
                .unwrap_or_else(|| "NVIDIA GPU".into())
        })
        .collect()
}

impl Engine {
    /// GET /health.
    pub fn health(&self) -> Result<Value> {
        let (free, total) = disk_of(&self.config.data_dir);
        let disk = sizes(free, total);
        let (memory, cpu) = {
            let mut sys = self.sys.lock().unwrap_or_else(|p| p.into_inner());
            sys.refresh_memory();
            sys.refresh_cpu_usage();
            (
                sizes(sys.available_memory(), sys.total_memory()),
                json!({"percent": (sys.global_cpu_usage() as f64 * 10.0).round() / 10.0}),
            )
        };
        let devices = gpus();
        let gpu = json!({"count": devices.len(), "devices": devices});
        let search = self.search_health();
        let mlp = self.mlp_health();
        let active = self.active_tasks()?;
        let version = env!("CARGO_PKG_VERSION");
        Ok(json!({
            "elastic": search,
            "mlp": mlp,
            "version": version,
            "disk": disk,
            "memory": memory,
            "cpu": cpu,
            "gpu": gpu,
            "active_tasks": active,
            "services": {"elastic": search, "redis": {"alive": true}},
            "host": {"disk": disk, "memory": memory, "cpu": cpu, "gpu": gpu},
            "toolkit": {"version": version, "active_tasks": active}
        }))
    }
}
