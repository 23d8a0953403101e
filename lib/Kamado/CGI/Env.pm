package Kamado::CGI::Env;
use 5.024;
use strict;
use warnings;

use Kamado ();

# The environment a CGI script gets: RFC 3875's meta-variables plus what
# Apache 2.4 adds, and nothing else (the server's own %ENV stays out,
# save PATH). Never REMOTE_HOST (Apache's HostnameLookups Off: scripts
# then do their own lookup) and never MOD_PERL (scripts switch behaviour
# on it). HTTP_PROXY is dropped (httpoxy), and Authorization is not passed,
# as Apache does not pass it. What the server's own environment should
# add goes through pass (Apache's PassEnv and SetEnv).

my @DROP = qw(HTTP_PROXY HTTP_AUTHORIZATION HTTP_PROXY_AUTHORIZATION);
my %SERVER;

# for(psgi_env, script => { name, filename, path_info }, document_root => DIR,
#     context_prefix => PREFIX, context_root => DIR, pass => [NAME or NAME=VALUE...])
# What does not change from one request to the script to the next can be
# made once: for(psgi_env, fixed => fixed(same arguments)), or
# request(psgi_env, fixed(...)).
sub for {
    my ($class, $env, %args) = @_;
    return request($env, $args{fixed} // fixed($class, %args));
}

# The variables of a request: the fixed ones, those of the PSGI env, then
# --cgi-env's (over what the request gave); none is undef.
sub request {
    my ($env, $fixed) = @_;
    my %cgi = $fixed->{vars}->%*;
    my ($host, $port) = ($env->{HTTP_HOST} // $env->{SERVER_NAME}, $env->{SERVER_PORT});
    my $server = defined $host && defined $port && $SERVER{"$host\0$port"} || _server($host, $port);
    @cgi{qw(SERVER_PROTOCOL SERVER_NAME SERVER_PORT SERVER_ADDR REQUEST_METHOD REQUEST_SCHEME REQUEST_URI
            QUERY_STRING REMOTE_ADDR REMOTE_PORT SERVER_SIGNATURE)}
        = ($env->{SERVER_PROTOCOL}, $server->[0], $port, $env->{SERVER_ADDR} // '127.0.0.1',
           @$env{qw(REQUEST_METHOD psgi.url_scheme REQUEST_URI)}, $env->{QUERY_STRING} // '',
           @$env{qw(REMOTE_ADDR REMOTE_PORT)}, $server->[1]);
    $cgi{HTTPS} = 'on' if ($env->{'psgi.url_scheme'} // '') eq 'https';
    $cgi{CONTENT_TYPE} = $env->{CONTENT_TYPE} if length $env->{CONTENT_TYPE};
    $cgi{CONTENT_LENGTH} = $env->{CONTENT_LENGTH} if length $env->{CONTENT_LENGTH};
    my @http = grep { index($_, 'HTTP_') == 0 } keys %$env;
    @cgi{@http} = @$env{@http};
    delete @cgi{@DROP};
    delete @cgi{ grep { !defined $cgi{$_} } qw(SERVER_PROTOCOL SERVER_NAME SERVER_PORT REQUEST_METHOD
        REQUEST_SCHEME REQUEST_URI REMOTE_ADDR REMOTE_PORT), @http };
    # PassEnv/SetEnv: --cgi-env NAME or NAME=VALUE (an unset NAME removes it)
    @cgi{ keys $fixed->{set}->%* } = values $fixed->{set}->%*;
    delete @cgi{ $fixed->{unset}->@* };
    return \%cgi;
}

# [SERVER_NAME, SERVER_SIGNATURE] of a Host (or server name) and port,
# kept for 100 of them
sub _server {
    my ($host, $port) = @_;
    my $name = $host;
    $name =~ s/:\d+\z// if defined $name && $name !~ /\A\[[^\]]*\]\z/;
    # Debian's apache2 has ServerSignature On
    my $server = [$name, "<address>Kamado/$Kamado::VERSION Server at " . ($name // '') . ' Port ' . ($port // '') . "</address>\n"];
    return $server unless defined $host && defined $port;
    %SERVER = () if keys %SERVER >= 100;
    return $SERVER{"$host\0$port"} = $server;
}

# The part of for() that is the same for every request to a script:
# { vars, set, unset }.
sub fixed {
    my ($class, %args) = @_;
    my $script = $args{script};
    my %pass;
    for my $pass (($args{pass} // [])->@*) {
        my ($name, $value) = split /=/, $pass, 2;
        $pass{$name} = $value // $ENV{$name};
    }
    my %set = map { defined $pass{$_} ? ($_ => $pass{$_}) : () } keys %pass;
    my @unset = grep { !defined $pass{$_} } keys %pass;
    my %vars = (
        GATEWAY_INTERFACE => 'CGI/1.1',
        SERVER_SOFTWARE   => "Kamado/$Kamado::VERSION",
        SERVER_ADMIN      => '[no address given]',    # Apache's, without ServerAdmin
        SCRIPT_FILENAME   => $script->{filename},
        SCRIPT_NAME       => $script->{name},
        DOCUMENT_ROOT     => $args{document_root},
        CONTEXT_PREFIX    => $args{context_prefix} // '',
        CONTEXT_DOCUMENT_ROOT => $args{context_root} // $args{document_root},
        PATH              => $ENV{PATH} // '/usr/local/bin:/usr/bin:/bin',
    );
    if (length $script->{path_info}) {
        $vars{PATH_INFO} = $script->{path_info};
        # Apache maps the path info through the document root
        $vars{PATH_TRANSLATED} = $args{document_root} . $script->{path_info};
    }
    delete @vars{ grep { !defined $vars{$_} } keys %vars };
    return { vars => \%vars, set => \%set, unset => \@unset };
}

1;
__END__

=head1 NAME

Kamado::CGI::Env - the CGI meta-variables for a request

=cut
