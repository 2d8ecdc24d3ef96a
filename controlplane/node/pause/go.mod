module crdgen.invalid/controlplane/pause

go 1.22
