module libplacement.dev/placement

go 1.19
