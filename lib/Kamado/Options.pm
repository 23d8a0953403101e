package Kamado::Options;
use 5.024;
use strict;
use warnings;

use Getopt::Long ();
use Kamado::Log ();
use Socket ();

# The one table of command-line options: it drives parsing (kamado and
# plackup -s Kamado), the defaults, and t/options.t checks that the POD of
# script/kamado documents every row.
#   [ names (first is canonical), Getopt::Long type, default, what it sets,
#     range ]
# range, [min, max] inclusive, is required for numeric rows (=i, =f) and
# absent for others: parse_argv and from_handler_args refuse a value
# outside it (one line naming the option and the range) before anything
# is bound, and script/kamado's POD shows it on the option's =item line as
# "(MIN to MAX)". Maxima are what the C side holds (int counts, timeouts
# that become int milliseconds for poll) and what a machine can run.
#<<< (a table: one row a line, aligned by hand)
our @TABLE = (
    ['listen|l',               '=s@', undef,  'address to listen on (repeatable)'],
    ['host|o',                 '=s',  undef,  'host for --port (plackup compatible)'],
    ['port|p',                 '=i',  undef,  'port (plackup compatible)', [0, 65535]],
    ['proxy-protocol',         '=s@', undef,  'ADDRESS of a listener, as --listen gives it, whose connections start with a PROXY protocol header, version 1 or 2 (repeatable)'],
    ['proxy-protocol-from',    '=s@', undef,  'CIDR or address (IPv4 or IPv6), or unix:, of a proxy whose PROXY header is taken on a --proxy-protocol listener (repeatable); others are closed unread. Default 127.0.0.0/8, ::1 and unix:'],
    ['trusted-proxy',          '=s@', undef,  'CIDR or address (IPv4 or IPv6), or unix:, of a proxy whose X-Forwarded-For, X-Real-IP and X-Forwarded-Proto are believed (repeatable)'],
    ['forwarded-host',         '!',   0,      'a --trusted-proxy\'s X-Forwarded-Host and X-Forwarded-Port are believed too (HTTP_HOST, SERVER_NAME, SERVER_PORT): only when the proxy sets both itself'],
    ['workers',                '=i',  4,      'number of worker processes (a fixed pool); 0 serves in the one process', [0, 4096]],
    ['min-workers',            '=i',  undef,  'autoscaling: workers kept when idle, and started with (default 1)', [1, 4096]],
    ['max-workers',            '=i',  undef,  'autoscaling: the most workers run when all are busy', [1, 4096]],
    ['max-worker-idle',        '=f',  10,     'autoscaling: seconds a spare worker stays idle before it is retired', [0, 86400]],
    ['scoreboard',             '=s',  undef,  'file the scoreboard of worker states is kept in, for outside tools'],
    ['status-listen',          '=s',  undef,  'HOST:PORT (a port alone: on 127.0.0.1) or socket path where a process of its own answers / (an HTML status page), /status.json and /metrics (Prometheus)'],
    ['status-query',           '!',   0,      'the status page shows request lines with their query strings (hidden by default: any local user can read the page)'],
    ['pool',                   '=s@', undef,  'NAME:PATH_PREFIX[,workers=N][,timeout=S][,async[,streams=N]]: workers of their own for a path prefix (repeatable); async: each serves up to N streams at once (default 1000)'],
    ['async',                  '!',   0,      'workers serve many requests at once (psgi.nonblocking, an EV loop): apps that answer later, streams, WebSocket'],
    ['streams',                '=i',  1000,   'async: requests a worker serves at once; past it they wait for the pool', [1, 1048576]],
    ['stream-heartbeat',       '=f',  0,      'async: seconds after which an idle text/event-stream response gets an SSE comment line (for proxies\' idle timeouts); 0 none', [0, 86400]],
    ['max-reqs-per-child',     '=i',  0,      'requests a worker serves before it is replaced; 0 never', [0, 2147483647]],
    ['graceful-timeout',       '=f',  25,     'seconds TERM waits for busy workers before killing them; 0 waits for ever', [0, 86400]],
    ['load-timeout',           '=f',  60,     'seconds a new generation may take to load the app before it is killed; 0 waits for ever', [0, 86400]],
    ['max-worker-age',         '=f',  0,      'seconds a worker serves before it is replaced; 0 never', [0, 31536000]],
    ['max-rss',                '=i',  0,      'MB of resident memory after which a worker is replaced; 0 never', [0, 1048576]],
    ['request-timeout',        '=f',  0,      'seconds an app may take before 504 (the worker is killed 2 s later); 0 none', [0, 86400]],
    ['keepalive-timeout',      '=f',  75,     'seconds an idle keep-alive connection is kept', [0, 86400]],
    ['max-keepalive-reqs',     '=i',  10000,  'requests served on one connection', [1, 2147483647]],
    ['header-timeout',         '=f',  30,     'seconds for a whole request head to arrive', [0.001, 86400]],
    ['read-timeout',           '=f',  30,     'seconds to wait for more of a request body', [0.001, 86400]],
    ['write-timeout',          '=f',  30,     'seconds to wait for a client that does not read', [0.001, 86400]],
    ['min-body-rate',          '=f',  500,    'bytes per second a request body must average', [0, 1073741824]],
    ['write-buffer',           '=i',  1048576,'response bytes per connection the event loop sends for a slow reader', [0, 1073741824]],
    ['max-connections',        '=i',  1000,   'open connections per worker', [1, 1048576]],
    ['max-request-body',       '=i',  1073741824, 'largest request body in bytes (413 above it); 0 no limit', [0, 9007199254740992]],
    ['expect-to-app',          '!',   0,      'Expect: 100-continue is the app\'s to answer (it reads psgi.input to accept the upload), not the server\'s'],
    ['spool-threshold',        '=i',  1048576,'request bodies larger than this reach the app as a temporary file', [0, 1073741824]],
    ['user',                   '=s',  undef,  'user (name or uid) to run as once the listeners are bound, with its groups'],
    ['group',                  '=s',  undef,  'group (name or gid) to run as, instead of the --user\'s own'],
    ['socket-mode',            '=s',  undef,  'octal mode of the unix sockets kamado makes, such as 0660 (owner and group: --user, --group)'],
    ['pid-file',               '=s',  undef,  'file the supervisor\'s pid is written to (as root, before --user), removed at exit'],
    ['error-log',              '=s',  undef,  'file the log (and every process\'s STDERR) is appended to, USR1 reopening it; or syslog, syslog:FACILITY (default daemon)'],
    ['log-level',              '=s',  'info', 'the least severe lines logged: error, warn, notice, info or debug'],
    ['reload|r',               '!',   0,      'development: load the app afresh in a new generation (as HUP does) when a file under its directory or an -I directory changes'],
    ['access-log',             '=s',  undef,  'file each request\'s line is appended to (- for standard output); USR1 reopens it'],
    ['access-log-format',      '=s',  'combined', 'the access log\'s Apache LogFormat string, or combined or common'],
    ['preload',                '!',   1,      'load the app in the generation before forking its workers'],
    ['startup',                '=s',  undef,  'FILE: a startup.pl run in each generation before the app loads and the workers fork (modules to preload, globals); a HUP runs it again'],
    ['worker-init',            '=s',  undef,  'MODULE (its worker_init method is called) or Perl code: run in each worker once forked, before it accepts (connect on init)'],
    ['cgi-bin',                '=s@', undef,  'DIR (at /cgi-bin) or /PREFIX=DIR: a directory of CGI scripts (repeatable)'],
    ['cgi-docroot',            '=s@', undef,  'DIR (at /) or /PREFIX=DIR: a document root with CGI scripts beside static files: names with a --cgi-ext extension run as CGI, other files are sent (repeatable)'],
    ['cgi-follow-links',       '=s@', undef,  'DIR: a symbolic link in a CGI directory may lead into DIR and below (repeatable); other links out of the CGI directory are refused (403, logged)'],
    ['cgi-env',                '=s@', undef,  'NAME (passed from the server\'s environment) or NAME=VALUE: added to every CGI script\'s environment'],
    ['cgi-timeout',            '=f',  300,    'seconds a CGI script may go without output before it is stopped (504); in the registry and perlrun modes, the whole run', [0, 86400]],
    ['cgi-ext',                '=s',  'cgi,pl', 'comma list of the file extensions that are CGI scripts under --cgi-docroot (any case); under --cgi-bin, where every file is a script, those perl runs without a #! line'],
    ['preload-cgi',            '!',   0,      'make the CGI scripts ready before the workers serve: registry and perlrun scripts compiled before the workers fork, fork mode\'s zygotes started by each worker before it accepts'],
    ['cgi-mode',               '=s',  'auto', 'how CGI scripts run: auto (each script in the fastest mode that runs it as plain CGI, as kamado check finds it), fork (compiled once, a fork per request), exec (a new perl per request, as mod_cgi), registry (compiled once, run in the worker) or perlrun (compiled per request, in the worker); .kamado-cgi files override it per directory or script'],
    ['persistent-dbi',         '!',   1,      'CGI scripts in the registry, perlrun and fork modes keep their DBI handles across requests (Kamado::DBI): DBI->connect gives the worker\'s (in fork mode the zygote\'s) handle, reset after each request'],
    ['dbi-ping-interval',      '=f',  5,      'seconds a kept DBI handle may sit idle before it is pinged before reuse; 0 pings on every reuse', [0, 86400]],
    ['app|a',                  '=s',  undef,  'the PSGI file (or give it as the last argument)'],
    ['env|E',                  '=s',  'deployment', 'PLACK_ENV for the app'],
    ['include|I',              '=s@', undef,  'add a directory to @INC'],
    ['module|M',               '=s@', undef,  'load a module before the app'],
    ['help|h',                 '',    undef,  'show the manual'],
    ['version|v',              '',    undef,  'show the version'],
);
#>>>

# canonical name with dashes -> key with underscores
sub key_of { my $name = (split /\|/, $_[0])[0]; $name =~ tr/-/_/; $name }

sub names { map { (split /\|/, $_->[0])[0] } @TABLE }

sub defaults {
    return { map { (key_of($_->[0]) => $_->[2]) } grep { defined $_->[2] } @TABLE };
}

# default(KEY): the table's default for the option KEY (as key_of gives
# it). The constructors take what they are given, else this: a default is
# written in the table only.
my %ROW = map { (key_of($_->[0]) => $_) } @TABLE;

sub default {
    my ($key) = @_;
    my $row = $ROW{$key} or die "Kamado::Options: no option $key\n";
    return $row->[2];
}

# Parses argv into a hash keyed like key_of(); dies with a one-line message
# naming the bad option.
sub parse_argv {
    my ($class, @argv) = @_;
    my %opt;
    my @errors;
    my $parser = Getopt::Long::Parser->new(config => [qw(no_ignore_case bundling no_auto_abbrev)]);
    local $SIG{__WARN__} = sub { push @errors, $_[0] };
    my @specs = map { my $k = key_of($_->[0]); ($_->[0] . $_->[1] => \$opt{$k}) } @TABLE;
    local @ARGV = @argv;
    $parser->getoptions(@specs) or do {
        my $msg = $errors[0] // "invalid options\n";
        chomp $msg;
        # a value Getopt::Long refuses as a number gets the range message
        if (my ($value, $name) = $msg =~ /\AValue "(.*)" invalid for option ([a-z-]+)/s) {
            my ($row) = grep { (split /\|/, $_->[0])[0] eq $name && $_->[4] } @TABLE;
            _out_of_range($row, $value) if $row;
        }
        die "kamado: $msg (see kamado --help)\n";
    };
    delete @opt{ grep { !defined $opt{$_} } keys %opt };
    check_ranges(\%opt);
    _check_socket_mode(\%opt);
    _check_trusted_proxies(\%opt);
    _check_log(\%opt);
    if (@ARGV) {
        die "kamado: more than one app given: @ARGV\n" if @ARGV > 1 || defined $opt{app};
        $opt{app} = $ARGV[0];
    }
    return _check_pools({ defaults()->%*, %opt });
}

# Dies with one line if a numeric option is not a number of its type or
# lies outside its row's range (non-finite values are outside every range).
sub check_ranges {
    my ($opt) = @_;
    for my $row (grep { $_->[1] =~ /^=[if]\z/ } @TABLE) {
        my $value = $opt->{ key_of($row->[0]) } // next;
        my ($min, $max) = $row->[4]->@*;
        my $number = $row->[1] eq '=i' ? qr/\A[-+]?[0-9]+\z/ : qr/\A[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\z/;
        _out_of_range($row, $value) if ref $value || $value !~ $number || $value < $min || $value > $max;
    }
    return $opt;
}

sub _check_socket_mode {
    my ($opt) = @_;
    my $mode = $opt->{socket_mode} // return;
    die "kamado: --socket-mode must be an octal mode such as 0660, not '$mode'\n" unless $mode =~ /\A0?[0-7]{3}\z/;
}

# --trusted-proxy, --proxy-protocol-from: ADDRESS or ADDRESS/BITS, IPv4
# or IPv6, or unix: (every peer on a unix socket); one line naming the
# option and the value.
sub _check_trusted_proxies {
    my ($opt) = @_;
    for my $option (qw(trusted-proxy proxy-protocol-from)) {
        for my $spec (($opt->{ $option =~ tr/-/_/r } // [])->@*) {
            next if $spec eq 'unix:';
            my ($addr, $bits) = $spec =~ m{\A([0-9A-Fa-f:.]+)(?:/([0-9]{1,3}))?\z};
            my $v6 = defined $addr && $addr =~ /:/;
            next if defined $addr && Socket::inet_pton($v6 ? Socket::AF_INET6() : Socket::AF_INET(), $addr)
                && (!defined $bits || $bits <= ($v6 ? 128 : 32));
            die "kamado: --$option '$spec' is not an address or CIDR block (such as 10.0.0.0/8, 127.0.0.1 or fd00::/8), nor unix:\n";
        }
    }
    die "kamado: --proxy-protocol-from needs --proxy-protocol (the listeners that take PROXY headers)\n"
        if $opt->{proxy_protocol_from} && !$opt->{proxy_protocol};
}

# --log-level LEVEL; --error-log syslog:FACILITY (a file called syslog
# is ./syslog)
sub _check_log {
    my ($opt) = @_;
    my $level = $opt->{log_level};
    die "kamado: --log-level must be one of @{[ Kamado::Log::levels() ]}, not '$level'\n"
        if defined $level && !Kamado::Log->is_level($level);
    my ($facility) = ($opt->{error_log} // '') =~ /\Asyslog(?::(.*))?\z/s or return;
    die "kamado: --error-log $opt->{error_log}: the facility must be one of @Kamado::Log::FACILITIES\n"
        if defined $facility && !grep { $_ eq $facility } @Kamado::Log::FACILITIES;
}

sub _out_of_range {
    my ($row, $value) = @_;
    my $name = (split /\|/, $row->[0])[0];
    die "kamado: --$name must be " . ($row->[1] eq '=i' ? 'an integer' : 'a number')
        . " from $row->[4][0] to $row->[4][1], not '$value'\n";
}

# --pool values, strings, become [{name, prefix, workers, timeout}]; dies
# with one line naming --pool and the value at fault.
sub _check_pools {
    my ($opt) = @_;
    my $specs = $opt->{pool} // return $opt;
    my (@pools, %seen);
    for my $spec (ref $specs ? @$specs : $specs) {
        my $pool = ref $spec ? $spec : parse_pool($spec);
        for my $k (qw(name prefix)) {
            die "kamado: --pool '$spec': the $k $pool->{$k} is given twice\n" if $seen{$k}{ $pool->{$k} }++;
        }
        push @pools, $pool;
    }
    die "kamado: --pool needs --workers 1 or more (the other requests need workers too)\n" if !$opt->{workers};
    $opt->{pool} = \@pools;
    return $opt;
}

sub parse_pool {
    my ($spec) = @_;
    my $bad = sub { die "kamado: --pool '$spec': $_[0] (expected NAME:PATH_PREFIX[,workers=N][,timeout=S][,async[,streams=N]])\n" };
    my ($name, $prefix, $rest) = $spec =~ m{\A([A-Za-z0-9_.-]+):([^,\s]*)(.*)\z}s or $bad->('no NAME:PATH_PREFIX');
    $bad->('the prefix must start with /') unless $prefix =~ m{\A/};
    $bad->('the prefix is longer than 255 bytes') if length $prefix > 255;
    my %pool = (name => $name, prefix => $prefix, workers => 1, timeout => undef, async => 0, streams => undef);
    $bad->('an empty setting after a comma') if $rest =~ /,\z/;
    for my $kv ($rest eq '' ? () : split /,/, substr($rest, 1), -1) {
        # the ranges of --workers and --request-timeout hold here too
        if ($kv =~ /\Aworkers=([0-9]+)\z/ && $1 >= 1 && $1 <= _max('workers')) {
            $pool{workers} = $1 + 0;
        } elsif ($kv =~ /\Atimeout=([0-9]+(?:\.[0-9]+)?)\z/ && $1 <= _max('request-timeout')) {
            $pool{timeout} = $1 + 0;
        } elsif ($kv eq 'async') {
            $pool{async} = 1;
        } elsif ($kv =~ /\Astreams=([0-9]+)\z/ && $1 >= 1 && $1 <= _max('streams')) {
            $pool{streams} = $1 + 0;
        } else {
            $bad->("'$kv' is not workers=N (1 to " . _max('workers') . '), timeout=SECONDS (0 to '
                . _max('request-timeout') . '), async or streams=N (1 to ' . _max('streams') . ')');
        }
    }
    $bad->('streams=N is for an async pool') if $pool{streams} && !$pool{async};
    return \%pool;
}

sub _max { my ($name) = @_; (grep { (split /\|/, $_->[0])[0] eq $name } @TABLE)[0][4][1] }

# Options handed to Plack::Handler::Kamado by plackup, as the list of
# pairs Plack::Loader passes: underscores or dashes; a repeatable option
# (--cgi-bin, --pool ...) may come more than once, or as an array; other
# keys are dropped, with a warning (plackup's -D, a misspelt option). plackup always sends listen, built
# from --listen, or --socket, or --host and --port (":5000" when none is
# given), with host, port and socket derived from it: when listen is
# there it is the whole answer, as in Starman, and the derived keys are
# ignored (binding them too would bind the same address twice).
sub from_handler_args {
    my ($class, @pairs) = @_;
    my %row = map { (key_of($_->[0]) => $_) } @TABLE;
    my %opt;
    while (my ($k, $v) = splice @pairs, 0, 2) {
        (my $key = $k) =~ tr/-/_/;
        if (!$row{$key} && $key !~ /\A(?:server_ready|socket)\z/) {
            # a misspelt option must not pass unnoticed
            Kamado::Log->warn("ignoring '$k', not an option of Kamado (see kamado --help)");
            next;
        }
        if ($row{$key} && $row{$key}[1] =~ /\@\z/) {
            push $opt{$key}->@*, ref $v eq 'ARRAY' ? @$v : $v;
        } else {
            $opt{$key} = $v;
        }
    }
    if ($opt{listen}) {
        delete @opt{qw(host port socket)};
        $opt{listen} = [map { plack_listen($_) } $opt{listen}->@*];
    }
    check_ranges(\%opt);
    _check_socket_mode(\%opt);
    _check_trusted_proxies(\%opt);
    _check_log(\%opt);
    return _check_pools({ defaults()->%*, %opt });
}

# plackup's spelling of a listen address in Kamado's: plackup joins
# --host and --port with a colon even for IPv6 ("::1:5000"), and takes
# anything that does not end in :PORT as a unix socket path ("app.sock").
sub plack_listen {
    my ($spec) = @_;
    return "[$1]:$2" if $spec =~ /\A([0-9a-fA-F]*:[0-9a-fA-F:.]*):([0-9]+)\z/;
    return $spec if $spec =~ /:[0-9]+\z/ || $spec =~ m{/} || $spec =~ /\Aunix:/;
    return "unix:$spec";
}

1;
__END__

=head1 NAME

Kamado::Options - the table of Kamado's options

=cut
