# The bind mounts a build in a chroot needs (/proc, /sys, /dev), made and undone alike by
# .ci/fresh_debian.sh and .ci/libtorch2_chroot.sh. Sourced; $root is the chroot.

# chroot_unmount [EXTRA...]: unmounts what chroot_mount mounted (and EXTRA paths under $root,
# innermost first), whatever is mounted of it; for a trap on EXIT.
chroot_unmount() {
  for m in "$@" dev/shm dev/pts dev sys proc; do
    mountpoint -q "$root/$m" 2> /dev/null && umount "$root/$m"
  done
  return 0
}

chroot_mount() {
  for m in proc sys dev dev/pts dev/shm; do mount --bind "/$m" "$root/$m"; done
}
