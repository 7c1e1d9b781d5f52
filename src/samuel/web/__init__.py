"""Play and analyse in the browser: ``samuel serve`` (docs/web.md).

The server lives here, apart from the core, which never imports it; this module imports
FastAPI and uvicorn only when a server is started, so the rest of ``samuel`` runs without them.
"""

from __future__ import annotations

import argparse


def command_serve(args: argparse.Namespace) -> None:
    """``samuel serve``: run the web server until interrupted."""
    from samuel.web.app import check_game, check_tablebase_game

    check_game(args.game)  # before FastAPI is looked for: the answers do not depend on it
    if args.tablebase is not None:
        check_tablebase_game(args.game)
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError as error:
        raise OSError(
            f"samuel serve needs the web extra ({error}): pip install 'samuel[web]'"
        ) from None
    from samuel.web.app import allowed_hosts_for, create_app

    hosts = allowed_hosts_for(args.host, args.allowed_host)
    app = create_app(
        game=args.game,
        weights_dir=args.weights_dir,
        tablebase_dir=args.tablebase,
        allowed_hosts=hosts,
        waiting_searches=args.search_queue,
    )
    print(f"Samuel: open http://{args.host}:{args.port}/ (Ctrl-C stops the server)", flush=True)
    print(
        f"Answering requests for the hosts {', '.join(hosts)} (--allowed-host adds more)",
        flush=True,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
