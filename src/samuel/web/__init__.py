"""Play and analyse in the browser: ``samuel serve`` (docs/web.md).

The server lives here, apart from the core, which never imports it; this module imports
FastAPI and uvicorn only when a server is started, so the rest of ``samuel`` runs without them.
"""

from __future__ import annotations

import argparse
import errno
import socket

from samuel.errors import CommandError

LOWEST_PORT, HIGHEST_PORT = 1, 65535  # TCP's ports; 0 (any free one) is not offered
LISTEN_BACKLOG = 2048  # uvicorn's default


def check_port(port: int) -> None:
    """Refuse a port TCP has not: the operating system would wrap 99999 round to another one
    (it takes the port modulo 65536), and the server would listen where nobody looks."""
    if not LOWEST_PORT <= port <= HIGHEST_PORT:
        raise CommandError(f"--port must be between {LOWEST_PORT} and {HIGHEST_PORT}, not {port}")


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` and listening, as uvicorn would make it; raises
    :class:`CommandError` in one line when it cannot be (the port in use, an address that is
    not this machine's, a name that does not resolve, a port that needs privileges), so that
    nothing is announced before the server really listens."""
    check_port(port)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family=family, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(LISTEN_BACKLOG)
    except OSError as error:
        sock.close()
        raise CommandError(_listen_failure(host, port, error)) from None
    sock.set_inheritable(True)
    return sock


def _listen_failure(host: str, port: int, error: OSError) -> str:
    if error.errno == errno.EADDRINUSE:
        return f"port {port} on {host} is in use (another server listens there; try --port)"
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"port {port} on {host} needs privileges this user has not (try a port above 1023)"
    if error.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {host}: it is not an address of this machine"
    if isinstance(error, socket.gaierror):
        return f"cannot listen on {host}: the name does not resolve ({error.strerror})"
    return f"cannot listen on {host} port {port}: {error.strerror or error}"


def url_of(host: str, port: int) -> str:
    """The address to open: an IPv6 address in brackets."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


def _pipeline_dir(folder: str | None):
    """The ``--pipeline`` folder, which must be one (its store is checked when opened)."""
    from pathlib import Path

    if folder is None:
        return None
    if not Path(folder).is_dir():
        raise CommandError(f"--pipeline {folder} is not a folder (samuel pipeline run makes one)")
    return Path(folder)


def command_serve(args: argparse.Namespace) -> None:
    """``samuel serve``: run the web server until interrupted."""
    from samuel.games import get_game
    from samuel.web.app import check_tablebase_game, check_weights_dir

    get_game(args.game)  # before FastAPI is looked for: the answers do not depend on it
    check_port(args.port)
    if args.tablebase is not None:
        check_tablebase_game(args.game)
    if args.weights_dir is not None:
        check_weights_dir(args.weights_dir)
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError as error:
        raise OSError(
            f"samuel serve needs the web extra ({error}): pip install 'samuel[web]'"
        ) from None
    from samuel.web.app import allowed_hosts_for, create_app, page_game
    from samuel.web.keys import ApiKeys

    hosts = allowed_hosts_for(args.host, args.allowed_host)
    keys = None if args.api_keys is None else ApiKeys.load(args.api_keys)
    if args.db is not None and args.pipeline is None:
        raise CommandError("--db is a pipeline's store: give --pipeline DIR too")
    app = create_app(
        game=args.game,
        weights_dir=args.weights_dir,
        tablebase_dir=args.tablebase,
        allowed_hosts=hosts,
        waiting_searches=args.search_queue,
        pipeline_dir=_pipeline_dir(args.pipeline),
        pipeline_db=args.db,
        api_keys=keys,
        runtime=args.runtime,
    )
    sock = listen(args.host, args.port)  # bound before anything says where to look
    port = sock.getsockname()[1]
    print(f"Samuel: open {url_of(args.host, port)} (Ctrl-C stops the server)", flush=True)
    if page_game(args.game) is None:
        print(f"The page does not draw {args.game} yet: this server answers /v1", flush=True)
    if keys is not None:
        print(f"The /v1 API needs one of the {len(keys)} keys of {args.api_keys}", flush=True)
    print(
        f"Answering requests for the hosts {', '.join(hosts)} (--allowed-host adds more)",
        flush=True,
    )
    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=port, log_level="info"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # as uvicorn.run: Ctrl-C is how the server stops
        pass
    finally:
        sock.close()
    if not server.started:  # uvicorn said why (the application's start-up failed)
        raise CommandError("the server did not start; the lines above say why")
