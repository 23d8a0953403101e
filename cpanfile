# The one list of Kamado's prerequisites: Makefile.PL reads it (and
# t/prereqs.t checks it against what lib/ and script/ load).
requires 'perl', '5.024';
requires 'Plack', '1.0';
requires 'Stream::Buffered', '0.02';
requires 'Server::Starter', '0.30';
requires 'HTTP::Date';
requires 'HTTP::Status', '6.00';
requires 'Filesys::Notify::Simple';    # --reload
recommends 'Linux::Inotify2';          # --reload without a scan every 2 s
requires 'Apache::LogFormat::Compiler', '0.33';
requires 'PPI', '1.270';                # kamado check
requires 'EV', '4.0';                  # --async workers' loop
recommends 'AnyEvent::HTTP';           # examples/ai-stream.psgi
recommends 'Protocol::WebSocket';      # examples/websocket-chat.psgi
recommends 'DBI', '1.631';             # Kamado::DBI, when the app uses DBI

on configure => sub {
    requires 'ExtUtils::MakeMaker', '6.64';
    requires 'Module::CPANfile', '1.1000';
};

on test => sub {
    requires 'Test::More', '0.98';
    requires 'CGI', '4.00';    # the legacy CGI fixtures use CGI.pm
    requires 'CGI::Fast';      # t/check's CGI::Fast fixture
    requires 'Mojolicious', '8.0';    # t/plackup/app-chunked.t: an app that chunks its own body
    # t/dbi/: private MariaDB and PostgreSQL servers, and SQLite
    requires 'DBI', '1.631';
    requires 'DBD::MariaDB', '1.00';
    requires 'DBD::mysql', '4.0';    # seed 004's driver: t/dbi runs MariaDB cases with both
    requires 'DBD::Pg', '3.0';
    requires 'DBD::SQLite', '1.40';
    # t/async/, t/plackup/async.t: async apps and their clients
    requires 'AnyEvent', '7.0';
    requires 'AnyEvent::HTTP', '2.0';
    requires 'AnyEvent::WebSocket::Client', '0.40';
    requires 'Protocol::WebSocket', '0.20';
    requires 'Mojolicious', '8.0';
};

on develop => sub {
    requires 'Test::Pod', '1.41';
    requires 'Test::Pod::Coverage', '1.08';
};
