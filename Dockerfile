# syntax=docker/dockerfile:1
#
# propel-controller-manager and propel-scheduler image (propelctl is included for `propelctl
# interpret` and `join` from inside the cluster).
#
#   docker build -t propel-controller-manager:latest .
#
# Not built in the development environment this file was written in (it has
# no Docker engine); the same `go build` commands are checked there.

FROM golang:1.26 AS builder
WORKDIR /src
# Module downloads are cached in their own layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ENV CGO_ENABLED=0
RUN go build -trimpath -ldflags "-s -w" -o /out/propel-controller-manager ./cmd/propel-controller-manager && \
    go build -trimpath -ldflags "-s -w" -o /out/propel-scheduler ./cmd/propel-scheduler && \
    go build -trimpath -ldflags "-s -w" -o /out/propelctl ./cmd/propelctl

FROM gcr.io/distroless/static:nonroot
COPY --from=builder /out/propel-controller-manager /out/propel-scheduler /out/propelctl /usr/local/bin/
# Karmada's manifests start their binaries by path: the same image can
# replace the karmada-controller-manager and karmada-scheduler images
# without editing their commands.
COPY --from=builder /out/propel-controller-manager /bin/karmada-controller-manager
COPY --from=builder /out/propel-scheduler /bin/karmada-scheduler
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/propel-controller-manager"]
