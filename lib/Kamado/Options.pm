package Kamado::Options;
use 5.024;
use strict;
use warnings;

use Getopt::Long ();

# The one table of command-line options: it drives parsing (kamado and
# plackup -s Kamado), the defaults, and t/options.t checks that the POD of
# script/kamado documents every row.
#   [ names (first is canonical), Getopt::Long type, default, what it sets ]
our @TABLE = (
    ['listen|l',               '=s@', undef,  'address to listen on (repeatable)'],
    ['host|o',                 '=s',  undef,  'host for --port (plackup compatible)'],
    ['port|p',                 '=i',  undef,  'port (plackup compatible)'],
    ['workers',                '=i',  4,      'number of worker processes (a fixed pool); 0 serves in the one process'],
    ['min-workers',            '=i',  undef,  'autoscaling: workers kept when idle, and started with (default 1)'],
    ['max-workers',            '=i',  undef,  'autoscaling: the most workers run when all are busy'],
    ['max-worker-idle',        '=f',  10,     'autoscaling: seconds a spare worker stays idle before it is retired'],
    ['scoreboard',             '=s',  undef,  'file the scoreboard of worker states is kept in, for outside tools'],
    ['pool',                   '=s@', undef,  'NAME:PATH_PREFIX[,workers=N][,timeout=S]: workers of their own for a path prefix (repeatable)'],
    ['max-reqs-per-child',     '=i',  0,      'requests a worker serves before it is replaced; 0 never'],
    ['graceful-timeout',       '=f',  25,     'seconds TERM waits for busy workers before killing them; 0 waits for ever'],
    ['load-timeout',           '=f',  60,     'seconds a new generation may take to load the app before it is killed; 0 waits for ever'],
    ['max-worker-age',         '=f',  0,      'seconds a worker serves before it is replaced; 0 never'],
    ['max-rss',                '=i',  0,      'MB of resident memory after which a worker is replaced; 0 never'],
    ['request-timeout',        '=f',  0,      'seconds an app may take before 504 (the worker is killed 2 s later); 0 none'],
    ['keepalive-timeout',      '=f',  75,     'seconds an idle keep-alive connection is kept'],
    ['max-keepalive-reqs',     '=i',  10000,  'requests served on one connection'],
    ['header-timeout',         '=f',  30,     'seconds for a whole request head to arrive'],
    ['read-timeout',           '=f',  30,     'seconds to wait for more of a request body'],
    ['write-timeout',          '=f',  30,     'seconds to wait for a client that does not read'],
    ['min-body-rate',          '=f',  500,    'bytes per second a request body must average'],
    ['write-buffer',           '=i',  1048576,'response bytes per connection the event loop sends for a slow reader'],
    ['max-connections',        '=i',  1000,   'open connections per worker'],
    ['max-request-body',       '=i',  1073741824, 'largest request body in bytes (413 above it); 0 no limit'],
    ['spool-threshold',        '=i',  1048576,'request bodies larger than this reach the app as a temporary file'],
    ['error-log',              '=s',  undef,  'file the log (and every process\'s STDERR) is appended to; USR1 reopens it'],
    ['preload',                '!',   1,      'load the app in the generation before forking its workers'],
    ['cgi-bin',                '=s@', undef,  'DIR (at /cgi-bin) or /PREFIX=DIR: a directory of CGI scripts (repeatable)'],
    ['cgi-env',                '=s@', undef,  'NAME (passed from the server\'s environment) or NAME=VALUE: added to every CGI script\'s environment'],
    ['cgi-timeout',            '=f',  300,    'seconds a CGI script may go without output before it is stopped (504); in the registry and perlrun modes, the whole run'],
    ['cgi-ext',                '=s',  'cgi,pl', 'comma list of the file extensions that are CGI scripts (other files are served as they are)'],
    ['cgi-mode',               '=s',  'fork', 'how CGI scripts run: fork (compiled once, a fork per request), exec (a new perl per request, as mod_cgi), registry (compiled once, run in the worker) or perlrun (compiled per request, in the worker); .kamado-cgi files override it per directory or script'],
    ['app|a',                  '=s',  undef,  'the PSGI file (or give it as the last argument)'],
    ['env|E',                  '=s',  'deployment', 'PLACK_ENV for the app'],
    ['include|I',              '=s@', undef,  'add a directory to @INC'],
    ['module|M',               '=s@', undef,  'load a module before the app'],
    ['help|h',                 '',    undef,  'show the manual'],
    ['version|v',              '',    undef,  'show the version'],
);

# canonical name with dashes -> key with underscores
sub key_of { my $name = (split /\|/, $_[0])[0]; $name =~ tr/-/_/; $name }

sub names { map { (split /\|/, $_->[0])[0] } @TABLE }

sub defaults {
    return { map { (key_of($_->[0]) => $_->[2]) } grep { defined $_->[2] } @TABLE };
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
        die "kamado: $msg (see kamado --help)\n";
    };
    delete @opt{ grep { !defined $opt{$_} } keys %opt };
    for my $row (grep { $_->[1] =~ /^=[if]$/ } @TABLE) {
        my $key = key_of($row->[0]);
        my $name = (split /\|/, $row->[0])[0];
        die "kamado: --$name must be 0 or more, not $opt{$key}\n" if defined $opt{$key} && $opt{$key} < 0;
    }
    if (@ARGV) {
        die "kamado: more than one app given: @ARGV\n" if @ARGV > 1 || defined $opt{app};
        $opt{app} = $ARGV[0];
    }
    return _check_pools({ defaults()->%*, %opt });
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
    my $bad = sub { die "kamado: --pool '$spec': $_[0] (expected NAME:PATH_PREFIX[,workers=N][,timeout=S])\n" };
    my ($name, $prefix, $rest) = $spec =~ m{\A([A-Za-z0-9_.-]+):([^,\s]*)(.*)\z}s or $bad->('no NAME:PATH_PREFIX');
    $bad->('the prefix must start with /') unless $prefix =~ m{\A/};
    $bad->('the prefix is longer than 255 bytes') if length $prefix > 255;
    my %pool = (name => $name, prefix => $prefix, workers => 1, timeout => undef);
    $bad->('an empty setting after a comma') if $rest =~ /,\z/;
    for my $kv ($rest eq '' ? () : split /,/, substr($rest, 1), -1) {
        if ($kv =~ /\Aworkers=([1-9][0-9]{0,3})\z/) {
            $pool{workers} = $1 + 0;
        } elsif ($kv =~ /\Atimeout=([0-9]+(?:\.[0-9]+)?)\z/) {
            $pool{timeout} = $1 + 0;
        } else {
            $bad->("'$kv' is not workers=N (1 or more) or timeout=SECONDS");
        }
    }
    return \%pool;
}

# Options handed to Plack::Handler::Kamado by plackup: underscores or
# dashes, plackup's own keys passed through.
sub from_handler_args {
    my ($class, %args) = @_;
    my %known = map { (key_of($_->[0]) => 1) } @TABLE;
    my %opt;
    for my $k (keys %args) {
        (my $key = $k) =~ tr/-/_/;
        next if !$known{$key} && $key !~ /^(?:server_ready|socket)$/;
        $opt{$key} = $args{$k};
    }
    $opt{listen} = [$opt{listen}] if defined $opt{listen} && !ref $opt{listen};
    return _check_pools({ defaults()->%*, %opt });
}

1;
__END__

=head1 NAME

Kamado::Options - the table of Kamado's options

=cut
