// Command runc-nosysresource is an OCI runtime wrapper for hosts whose capability
// bounding set lacks CAP_SYS_RESOURCE (some VMs, e.g. Firecracker guests).
//
// Privileged containers ask runc for every capability; runc then fails with
// "unable to apply caps: operation not permitted". The wrapper drops
// CAP_SYS_RESOURCE from the bundle's config.json (create, run) or from the
// --process file (exec) and then executes the real runc with the same arguments.
// It is installed as Docker's default runtime on the host and as containerd's
// runc BinaryName inside the kind node, and only where the capability is missing.
package main
